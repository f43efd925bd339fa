import { presentWithTestWallet } from "@cred/oid4vc";
import { redeemOffer } from "../../apps/api/test/wallet-client";
import { apiOrigin, bootstrapCredentials, unique } from "./env";

/**
 * Records made through the public API with the bootstrap key (as a relying party would), so a console
 * page can be checked against them: an active issuer with a configuration, policies over it, credentials
 * redeemed by a test wallet and presentations to verification sessions.
 */
async function api(method: string, path: string, body?: unknown) {
  const url = new URL(path, apiOrigin());
  if (path.startsWith("/management/")) url.searchParams.set("api-version", "2026-08-30");
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `ApiKey ${bootstrapCredentials().apiKey}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as { data?: any; error?: unknown };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

export interface Issuer {
  issuerId: string;
  name: string;
  configuration: string;
  credentialType: string;
}

/** Organisation → issuer → configuration (given_name, family_name) → activation. */
export async function activeIssuer(): Promise<Issuer> {
  const suffix = unique("rec");
  const org = await api("POST", "/management/organisations", {
    reference: `org-${suffix}`,
    displayName: `Org ${suffix}`,
  });
  const name = `Issuer ${suffix}`;
  const issuer = await api("POST", "/management/issuers", {
    organisationReference: org.reference,
    displayName: name,
    display: [{ locale: "en", name }],
  });
  const config = await api("POST", "/management/credential-configurations", {
    identifier: `badge-${suffix}`,
    displayName: "Badge",
    issuerId: issuer.id,
    schemaId: "badge-v1",
    claims: [
      { path: ["given_name"], type: "string", required: true },
      { path: ["family_name"], type: "string" },
    ],
  });
  await api("POST", `/management/issuers/${issuer.id}/activate`);
  return {
    issuerId: issuer.id,
    name,
    configuration: config.identifier,
    credentialType: config.credentialType,
  };
}

/**
 * A policy asking for `given_name` of `issuer`'s credential, trusting `trusted` (default: that issuer);
 * `sameDevice` makes it redirect the holder back with a response code and show the result only with it.
 */
export async function policy(
  identifier: string,
  issuer: Issuer,
  { trusted = issuer.issuerId, sameDevice = false }: { trusted?: string; sameDevice?: boolean } = {},
) {
  await api("POST", "/management/verification-policies", {
    identifier,
    ...(sameDevice ? { sameDeviceRedirectUri: "https://rp.example/done", requireResponseCode: true } : {}),
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
  });
}

export interface Issued {
  credential: string;
  credentialId: string;
  holderPrivateKey: CryptoKey;
}

/** Issues one credential of `issuer` (pre-authorized code flow) to a test wallet. */
export async function issue(issuer: Issuer, givenName = "Erika"): Promise<Issued> {
  const created = await api("POST", "/v1.0/issuance-transactions", {
    credentialConfiguration: issuer.configuration,
    issuerId: issuer.issuerId,
    claims: { given_name: givenName, family_name: "Mustermann" },
  });
  const flow = await redeemOffer(created.credentialOffer, created.txCode ? { txCode: created.txCode } : {});
  if (flow.credentialRes.status !== 200)
    throw new Error(`credential: ${JSON.stringify(flow.credentialRes.body)}`);
  const done = await api("GET", `/v1.0/issuance-transactions/${created.id}`);
  return {
    credential: flow.credentialRes.body.credentials[0].credential as string,
    credentialId: done.credentialId as string,
    holderPrivateKey: flow.keys[0]!.privateKey as CryptoKey,
  };
}

/** A new verification session of `policyIdentifier`; its id. */
export async function startVerification(policyIdentifier: string): Promise<{ id: string; link: string }> {
  const session = await api("POST", "/v1.0/verifications", { policy: policyIdentifier });
  return { id: session.id, link: session.authorizationRequestUri };
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
  return (await api("GET", `/v1.0/verification-sessions/${id}`)) as {
    id: string;
    status: string;
    result?: { reasons?: { code: string }[] };
  };
}

export const revoke = (credentialId: string) => api("POST", `/v1.0/credentials/${credentialId}/revoke`);

/** Activity_Get of the bootstrap key's environment. */
export const activity = (query: string) => api("GET", `/v1.0/activity${query}`);
