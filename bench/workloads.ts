// Our service's workloads, as a wallet and an API client would drive them (apps/api/test/wallet-client.ts).
import { randomBytes } from "node:crypto";
import {
  createProofJwt,
  type Es256KeyPair,
  generateEs256KeyPair,
  pkceChallengeOf,
  presentWithTestWallet,
} from "@cred/oid4vc";
import type { Client } from "./http";
import { API_VERSION, CLAIMS, type OursTarget } from "./ours";
import { Exhausted, type Step, type Workload } from "./workload";

const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

export const OUR_WORKLOADS = {
  create: "IssuanceTransactions_Create",
  issuance: "OpenID4VCI flow: create → offer → token → nonce → credential (1 proof)",
  "issuance-code":
    "OpenID4VCI authorization code flow: create → offer → PAR → authorize → token (PKCE) → nonce → credential",
  verification: "Verifications_Create → request object → direct_post → verified",
  revoke: "Credentials_Revoke + status list fetch",
  reads: "Management reads: Issuers_Get / Organisations_List (alternating)",
  floor: "HTTP floor: 5 sequential GET /healthz (an issuance flow's round trips with no work behind them)",
  webhooks:
    "OpenID4VCI flow with a webhook subscription to every event: fan-out and delivery to a local receiver on top",
  lists:
    "IssuanceTransactions_List / VerificationSessions_List over a seeded table (1,000,000 rows each; --smoke 10,000), with and without filters",
} as const;

/** The flows' common end: a c_nonce, the key proof over it (signed in the loop), the credential. */
async function nonceProofCredential(
  target: OursTarget,
  client: Client,
  key: Es256KeyPair,
  step: Step,
  accessToken: string,
): Promise<string> {
  const { c_nonce } = await step("nonce", () => client.json("POST", target.nonceEndpoint));
  const proof = await step("client: sign proof", () =>
    createProofJwt({
      privateKey: key.privateKey,
      publicJwk: key.publicJwk,
      audience: target.credentialIssuer,
      nonce: c_nonce,
      iat: Math.floor(Date.now() / 1000),
    }),
  );
  const res = await step("credential", () =>
    client.json("POST", target.credentialEndpoint, {
      headers: { authorization: `Bearer ${accessToken}` },
      body: { credential_configuration_id: target.configuration, proofs: { jwt: [proof] } },
    }),
  );
  const credential = res.credentials?.[0]?.credential;
  if (typeof credential !== "string") throw new Error("no credential");
  return credential;
}

/** The whole OpenID4VCI flow for one credential; returns the transaction id and the credential. */
async function issueOne(
  target: OursTarget,
  client: Client,
  key: Es256KeyPair,
  step: Step,
  create: () => Promise<any>,
): Promise<{ transactionId: string; credential: string }> {
  const tx = (await step("create", create)).data;
  const offerUri = new URL(tx.credentialOffer).searchParams.get("credential_offer_uri")!;
  const offer = await step("offer", () => client.json("GET", offerUri));
  const token = await step("token", () =>
    client.json("POST", target.tokenEndpoint, {
      form: { grant_type: PRE_AUTH, "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"] },
    }),
  );
  const credential = await nonceProofCredential(target, client, key, step, token.access_token);
  return { transactionId: tx.id, credential };
}

/**
 * The authorization code flow of an offer for one credential: PAR with PKCE S256, the authorization
 * endpoint's redirect (its code read from the Location header), the code exchange, nonce, credential.
 */
async function issueOneByCode(
  target: OursTarget,
  client: Client,
  key: Es256KeyPair,
  step: Step,
  create: () => Promise<any>,
): Promise<{ transactionId: string }> {
  const tx = (await step("create", create)).data;
  const offerUri = new URL(tx.credentialOffer).searchParams.get("credential_offer_uri")!;
  const offer = await step("offer", () => client.json("GET", offerUri));
  const verifier = randomBytes(32).toString("base64url");
  const redirectUri = "https://wallet.example/cb";
  const pushed = await step("par", () =>
    client.json("POST", `${target.credentialIssuer}/par`, {
      form: {
        response_type: "code",
        client_id: "bench-wallet",
        redirect_uri: redirectUri,
        code_challenge: pkceChallengeOf(verifier),
        code_challenge_method: "S256",
        issuer_state: offer.grants.authorization_code.issuer_state,
      },
      expect: 201,
    }),
  );
  const authorized = await step("authorize", () =>
    client.send(
      "GET",
      `${target.credentialIssuer}/authorize?${new URLSearchParams({ client_id: "bench-wallet", request_uri: pushed.request_uri })}`,
      { expect: 302 },
    ),
  );
  const code = new URL(authorized.location ?? "").searchParams.get("code");
  if (!code) throw new Error(`authorize redirected without a code: ${authorized.location}`);
  const token = await step("token", () =>
    client.json("POST", target.tokenEndpoint, {
      form: {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: "bench-wallet",
      },
    }),
  );
  await nonceProofCredential(target, client, key, step, token.access_token);
  return { transactionId: tx.id };
}

/**
 * The test wallet answering an authorization request over the driver's connections (request object,
 * then direct_post.jwt with A128GCM): the wallet leg of ours and of the peer's verification workload.
 */
export async function presentOverDriver(
  client: Client,
  authorizationRequestUri: string,
  holder: Es256KeyPair,
  credential: string,
) {
  const wallet = await presentWithTestWallet({
    authorizationRequestUri,
    fetch: client.fetch,
    holderPrivateKey: holder.privateJwk,
    credential,
    enc: "A128GCM",
  });
  if (wallet.status !== 200)
    throw new Error(`direct_post answered ${wallet.status} ${JSON.stringify(wallet.body)}`);
}

/**
 * One verification as a verifier and a wallet drive it: Verifications_Create, the test wallet fetching
 * the request object and answering with direct_post.jwt (A128GCM), then Verifications_Get = verified.
 */
export async function verifyOnce(
  target: OursTarget,
  client: Client,
  holder: Es256KeyPair,
  credential: string,
  step: Step,
) {
  const auth = { authorization: `ApiKey ${target.apiKey}` };
  const session = (
    await step("Verifications_Create", () =>
      client.json("POST", `${target.baseUrl}/v1.0/verifications`, {
        headers: auth,
        body: { policy: target.verificationPolicy },
        expect: 201,
      }),
    )
  ).data;
  await step("wallet: request object + direct_post.jwt", () =>
    presentOverDriver(client, session.authorizationRequestUri, holder, credential),
  );
  const read = await step("Verifications_Get", () =>
    client.json("GET", `${target.baseUrl}/v1.0/verifications/${session.id}`, { headers: auth }),
  );
  if (read.data.status !== "verified") throw new Error(`session ${read.data.status}`);
}

/** Whether oursWorkload("verification") exists in this harness. */
export const VERIFICATION_DRIVEN = true;

/** Holder keys made before the timed loop; proofs are signed in the loop because they carry the nonce. */
export async function holderKeys(n: number): Promise<Es256KeyPair[]> {
  return Promise.all(Array.from({ length: n }, () => generateEs256KeyPair()));
}

export function oursWorkload(name: string, target: OursTarget, client: Client, items: string[]): Workload {
  const auth = { authorization: `ApiKey ${target.apiKey}` };
  const createBody = {
    credentialConfiguration: target.configuration,
    issuerId: target.issuerId,
    claims: CLAIMS,
  };
  const create = () =>
    client.json("POST", `${target.baseUrl}/v1.0/issuance-transactions`, {
      headers: auth,
      body: createBody,
      expect: 201,
    });

  switch (name) {
    case "create":
      return { iteration: (step) => step("create", create) };

    case "issuance":
    case "webhooks": {
      let keys: Es256KeyPair[] = [];
      let n = 0;
      const produced: string[] = [];
      return {
        produced,
        async prepare() {
          keys = await holderKeys(64);
        },
        async iteration(step) {
          const { transactionId } = await issueOne(target, client, keys[n++ % keys.length]!, step, create);
          produced.push(transactionId);
        },
      };
    }

    case "issuance-code": {
      let keys: Es256KeyPair[] = [];
      let n = 0;
      const createByCode = () =>
        client.json("POST", `${target.baseUrl}/v1.0/issuance-transactions`, {
          headers: auth,
          body: { ...createBody, delivery: { grant: "authorizationCode" } },
          expect: 201,
        });
      return {
        async prepare() {
          keys = await holderKeys(64);
        },
        async iteration(step) {
          await issueOneByCode(target, client, keys[n++ % keys.length]!, step, createByCode);
        },
      };
    }

    case "verification": {
      // One credential, issued through our own flow before the loop, presented again in every session
      // (each presentation has a fresh KB-JWT over the session's nonce).
      let holder: Es256KeyPair;
      let credential = "";
      return {
        async prepare() {
          holder = (await holderKeys(1))[0]!;
          credential = (await issueOne(target, client, holder, (_n, fn) => fn(), create)).credential;
        },
        async iteration(step) {
          await verifyOnce(target, client, holder, credential, step);
        },
      };
    }

    case "revoke":
      return {
        async iteration(step) {
          const credentialId = items.pop();
          if (!credentialId) throw new Exhausted();
          const revoked = await step("revoke", () =>
            client.json("POST", `${target.baseUrl}/v1.0/credentials/${credentialId}/revoke`, {
              headers: auth,
            }),
          );
          const jwt = await step("status list", () =>
            client.send("GET", revoked.data.statusList.uri, {
              headers: { accept: "application/statuslist+jwt" },
            }),
          );
          if (jwt.text.split(".").length !== 3) throw new Error("status list is not a JWT");
        },
      };

    case "reads": {
      let n = 0;
      const issuerUrl = `${target.baseUrl}/management/issuers/${target.issuerId}?api-version=${API_VERSION}`;
      const orgsUrl = `${target.baseUrl}/management/organisations?api-version=${API_VERSION}`;
      return {
        iteration: (step) =>
          n++ % 2 === 0
            ? step("Issuers_Get", () => client.json("GET", issuerUrl, { headers: auth }))
            : step("Organisations_List", () => client.json("GET", orgsUrl, { headers: auth })),
      };
    }

    case "lists": {
      // One list call per iteration, round robin; each query is a step of its own (p50/p99 per query).
      const day = 24 * 3600 * 1000;
      const window = (daysAgo: number) =>
        `createdFrom=${new Date(Date.now() - daysAgo * day).toISOString()}&createdTo=${new Date(Date.now() - (daysAgo - 1) * day).toISOString()}`;
      const tx = `${target.baseUrl}/v1.0/issuance-transactions`;
      const vs = `${target.baseUrl}/v1.0/verification-sessions`;
      const queries: [string, () => string][] = [
        ["transactions: newest page", () => tx],
        ["transactions: deep page (cursor 15 days back)", () => `${tx}?cursor=${deepCursor}`],
        ["transactions: status=pending (as read)", () => `${tx}?status=pending`],
        ["transactions: status=expired (incl. pending past expiry)", () => `${tx}?status=expired`],
        ["transactions: status=completed", () => `${tx}?status=completed`],
        ["transactions: issuerId (other issuer)", () => `${tx}?issuerId=iss_bench_other`],
        [
          "transactions: credentialConfiguration",
          () => `${tx}?credentialConfiguration=${target.configuration}`,
        ],
        [
          "transactions: externalSubjectReference",
          () => `${tx}?externalSubjectReference=crm-${1 + (n % 5000)}`,
        ],
        ["transactions: created window (1 day, 10 days back)", () => `${tx}?${window(10)}`],
        ["sessions: newest page", () => vs],
        ["sessions: status=rejected", () => `${vs}?status=rejected`],
        ["sessions: policy", () => `${vs}?policy=bench-other-policy`],
        ["sessions: reason (2% of rows)", () => `${vs}?reason=credential_revoked`],
        ["sessions: created window (1 day, 10 days back)", () => `${vs}?${window(10)}`],
      ];
      let n = 0;
      let deepCursor = "";
      return {
        async prepare() {
          const cut = new Date(Date.now() - 15 * day).toISOString();
          const page = await client.json("GET", `${tx}?limit=1&createdTo=${cut}`, { headers: auth });
          deepCursor = page.nextCursor;
          if (!deepCursor) throw new Error("lists: the table is not seeded");
        },
        async iteration(step) {
          const [name, url] = queries[n++ % queries.length]!;
          const page = await step(name, () => client.json("GET", url(), { headers: auth }));
          if (!Array.isArray(page.data)) throw new Error(`${name}: no list`);
        },
      };
    }

    case "floor": {
      const health = `${target.baseUrl}/healthz`;
      return {
        async iteration(step) {
          for (let i = 0; i < 5; i++) await step("GET /healthz", () => client.send("GET", health));
        },
      };
    }

    default:
      throw new Error(`unknown workload ${name}`);
  }
}
