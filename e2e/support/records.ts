import { presentWithTestWallet } from "@cred/oid4vc";
import { redeemOffer } from "../../apps/api/test/wallet-client";
import { cred } from "./client";
import { unique } from "./env";

/**
 * Records made through the public API with the bootstrap key (as a relying party would, through the SDK),
 * so a console page can be checked against them: an active issuer with a configuration, policies over it,
 * credentials redeemed by a test wallet and presentations to verification sessions.
 */

export interface Issuer {
  issuerId: string;
  name: string;
  configuration: string;
  credentialType: string;
}

/** Organisation → issuer → configuration (given_name, family_name) → activation. */
export async function activeIssuer(): Promise<Issuer> {
  const suffix = unique("rec");
  const { data: org } = await cred().post("/management/organisations", {
    body: { reference: `org-${suffix}`, displayName: `Org ${suffix}` },
  });
  const name = `Issuer ${suffix}`;
  const { data: issuer } = await cred().post("/management/issuers", {
    body: { organisationReference: org.reference, displayName: name, display: [{ locale: "en", name }] },
  });
  const { data: config } = await cred().post("/management/credential-configurations", {
    body: {
      identifier: `badge-${suffix}`,
      displayName: "Badge",
      issuerId: issuer.id,
      schemaId: "badge-v1",
      claims: [
        { path: ["given_name"], type: "string", required: true },
        { path: ["family_name"], type: "string" },
      ],
    },
  });
  await cred().post("/management/issuers/{issuerId}/activate", { params: { path: { issuerId: issuer.id } } });
  return {
    issuerId: issuer.id,
    name,
    configuration: config.identifier,
    credentialType: config.credentialType,
  };
}

/**
 * A policy asking for `given_name` of `issuer`'s credential, trusting `trusted` (default: that issuer);
 * `sameDevice` makes it redirect the holder back with a response code and show the result only with it;
 * `settings` are the policy settings under test (responseMode, dcApi, clientIdPrefix, …).
 */
export async function policy(
  identifier: string,
  issuer: Issuer,
  {
    trusted = issuer.issuerId,
    sameDevice = false,
    settings = {},
  }: { trusted?: string; sameDevice?: boolean; settings?: Record<string, unknown> } = {},
) {
  await cred().post("/management/verification-policies", {
    body: {
      identifier,
      ...(sameDevice ? { sameDeviceRedirectUri: "https://rp.example/done", requireResponseCode: true } : {}),
      ...settings,
      displayName: `Policy ${identifier}`,
      purpose: "Console check",
      credentials: [
        {
          id: "badge",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: trusted }],
          requiredClaims: [["given_name"]],
        },
      ],
    },
  });
}

export interface Issued {
  credential: string;
  credentialId: string;
  holderPrivateKey: CryptoKey;
}

/** Issues one credential of `issuer` (pre-authorized code flow) to a test wallet. */
export async function issue(issuer: Issuer, givenName = "Erika"): Promise<Issued> {
  const { data: created } = await cred().post("/v1.0/issuance-transactions", {
    body: {
      credentialConfiguration: issuer.configuration,
      issuerId: issuer.issuerId,
      claims: { given_name: givenName, family_name: "Mustermann" },
    },
  });
  const flow = await redeemOffer(
    created.credentialOffer ?? "",
    created.txCode ? { txCode: created.txCode } : {},
  );
  if (flow.credentialRes.status !== 200)
    throw new Error(`credential: ${JSON.stringify(flow.credentialRes.body)}`);
  const { data: done } = await cred().get("/v1.0/issuance-transactions/{transactionId}", {
    params: { path: { transactionId: created.id } },
  });
  return {
    credential: flow.credentialRes.body.credentials[0].credential as string,
    credentialId: done.credentialId as string,
    holderPrivateKey: flow.keys[0]!.privateKey as CryptoKey,
  };
}

/** A new verification session of `policyIdentifier`; its id. */
export async function startVerification(policyIdentifier: string): Promise<{ id: string; link: string }> {
  const { data: session } = await cred().post("/v1.0/verifications", { body: { policy: policyIdentifier } });
  return { id: session.id, link: session.authorizationRequestUri ?? "" };
}

/** Presents `issued` to a new session of `policyIdentifier`; the session as decided. */
export async function presentTo(policyIdentifier: string, issued: Issued) {
  const { id, link } = await startVerification(policyIdentifier);
  const answer = await presentWithTestWallet({
    authorizationRequestUri: link,
    fetch: (input, init) => fetch(input, init),
    credential: issued.credential,
    holderPrivateKey: issued.holderPrivateKey,
  });
  if (answer.status !== 200) throw new Error(`wallet answer: ${answer.status}`);
  const { data } = await cred().get("/v1.0/verification-sessions/{id}", { params: { path: { id } } });
  return data;
}

export const revoke = async (credentialId: string) =>
  (await cred().post("/v1.0/credentials/{credentialId}/revoke", { params: { path: { credentialId } } })).data;

/** Activity_Get of the bootstrap key's environment. */
export const activity = async () => (await cred().get("/v1.0/activity")).data;
