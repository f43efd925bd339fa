// The peers' workloads (the library peer and the Credo peer alike), driven exactly like ours
// (bench/workloads.ts): the same HTTP client, the same proof signing and, for verification, the same test
// wallet (presentOverDriver: direct_post.jwt, A128GCM).
import { createProofJwt, type Es256KeyPair } from "@cred/oid4vc";
import type { Client } from "../http";
import { CLAIMS } from "../ours";
import type { Step, Workload } from "../workload";
import { holderKeys, presentOverDriver } from "../workloads";
import type { PeerTarget } from "./start";

const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

/** The same issuance flow as ours, against the peer issuer: create → offer → token → nonce → credential. */
export async function issueOne(
  target: PeerTarget,
  client: Client,
  key: Es256KeyPair,
  step: Step,
): Promise<string> {
  const tx = await step("create", () =>
    client.json("POST", `${target.controlUrl ?? target.baseUrl}/transactions`, {
      body: { claims: CLAIMS },
      expect: 201,
    }),
  );
  const offerUri = new URL(tx.credentialOffer).searchParams.get("credential_offer_uri")!;
  const offer = await step("offer", () => client.json("GET", offerUri));
  const token = await step("token", () =>
    client.json("POST", `${target.baseUrl}/token`, {
      form: {
        grant_type: PRE_AUTH,
        "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
      },
    }),
  );
  const { c_nonce } = await step("nonce", () => client.json("POST", `${target.baseUrl}/nonce`));
  const proof = await step("client: sign proof", () =>
    createProofJwt({
      privateKey: key.privateKey,
      publicJwk: key.publicJwk,
      audience: target.baseUrl,
      nonce: c_nonce,
      iat: Math.floor(Date.now() / 1000),
    }),
  );
  const res = await step("credential", () =>
    client.json("POST", `${target.baseUrl}/credential`, {
      headers: { authorization: `Bearer ${token.access_token}` },
      body: { credential_configuration_id: "employee", proofs: { jwt: [proof] } },
    }),
  );
  const credential = res.credentials?.[0]?.credential;
  if (typeof credential !== "string") throw new Error("no credential");
  return credential;
}

export function peerWorkload(name: string, target: PeerTarget, client: Client): Workload {
  switch (name) {
    case "issuance": {
      let keys: Es256KeyPair[] = [];
      let n = 0;
      return {
        async prepare() {
          keys = await holderKeys(64);
        },
        async iteration(step) {
          await issueOne(target, client, keys[n++ % keys.length]!, step);
        },
      };
    }

    case "verification": {
      // As ours: one credential, issued through the peer issuer before the loop, presented again in every
      // session (fresh KB-JWT over the session's nonce), to the peer verifier, which pins that issuer's key.
      const verifierUrl = target.verifierUrl;
      if (!verifierUrl) throw new Error("the peer verifier is not running");
      let holder: Es256KeyPair;
      let credential = "";
      return {
        async prepare() {
          holder = (await holderKeys(1))[0]!;
          credential = await issueOne(target, client, holder, (_n, fn) => fn());
        },
        async iteration(step) {
          const session = await step("create session", () =>
            client.json("POST", `${verifierUrl}/sessions`, { expect: 201 }),
          );
          await step("wallet: request object + direct_post.jwt", () =>
            presentOverDriver(client, session.authorizationRequestUri, holder, credential),
          );
          const read = await step("read result", () =>
            client.json("GET", `${verifierUrl}/sessions/${session.id}`),
          );
          if (read.status !== "verified") throw new Error(`session ${read.status}`);
        },
      };
    }

    default:
      throw new Error(`the peer has no workload ${name}`);
  }
}
