import { type generateEs256KeyPair, presentWithTestWallet } from "@cred/oid4vc";
import { call, type TestServer } from "./harness";
import { redeemOffer } from "./wallet-client";

let counter = 0;

export interface ActiveIssuer {
  issuerId: string;
  credentialIssuer: string;
  configuration: string;
  credentialType: string;
}

export const EMPLOYEE_CLAIMS = [
  { path: ["given_name"], type: "string", required: true },
  { path: ["family_name"], type: "string", required: true },
  { path: ["birthdate"], type: "date" },
  { path: ["employee_number"], type: "integer", selectivelyDisclosable: false },
  { path: ["address"], type: "object" },
  { path: ["address", "country"], type: "string", constraints: { pattern: "^[A-Z]{2}$" } },
];

/** Organisation → issuer (with display) → credential configuration → activation, through the API. */
export async function activeIssuer(
  t: Pick<TestServer, "baseUrl">,
  key: string,
  configuration: Record<string, unknown> = {},
): Promise<ActiveIssuer> {
  const n = ++counter;
  const org = await call(t, "POST", "/management/organisations", {
    key,
    body: { reference: `org-${n}-${Date.now().toString(36)}`, displayName: `Org ${n}` },
  });
  if (org.status !== 201) throw new Error(`organisation: ${JSON.stringify(org.body)}`);
  const issuer = await call(t, "POST", "/management/issuers", {
    key,
    body: {
      organisationReference: org.body.data.reference,
      displayName: `Issuer ${n}`,
      display: [{ locale: "en", name: `Issuer ${n}` }],
    },
  });
  if (issuer.status !== 201) throw new Error(`issuer: ${JSON.stringify(issuer.body)}`);
  const issuerId = issuer.body.data.id as string;
  const config = await call(t, "POST", "/management/credential-configurations", {
    key,
    body: {
      identifier: `employee-${n}-${Date.now().toString(36)}`,
      displayName: "Employee badge",
      issuerId,
      schemaId: "employee-v1",
      claims: EMPLOYEE_CLAIMS,
      ...configuration,
    },
  });
  if (config.status !== 201) throw new Error(`configuration: ${JSON.stringify(config.body)}`);
  const activated = await call(t, "POST", `/management/issuers/${issuerId}/activate`, { key });
  if (activated.status !== 200) throw new Error(`activate: ${JSON.stringify(activated.body)}`);
  return {
    issuerId,
    credentialIssuer: issuer.body.data.credentialIssuer,
    configuration: config.body.data.identifier,
    credentialType: config.body.data.credentialType,
  };
}

/**
 * A verification policy asking for `issuer`'s credential with `given_name`, trusting that issuer alone
 * (or what `trustedIssuers` names, e.g. an X.509 root).
 */
export async function policyTrusting(
  t: Pick<TestServer, "baseUrl">,
  key: string,
  identifier: string,
  issuer: Pick<ActiveIssuer, "issuerId" | "credentialType">,
  trustedIssuers: Record<string, string>[] = [{ issuerId: issuer.issuerId }],
): Promise<void> {
  const r = await call(t, "POST", "/management/verification-policies", {
    key,
    body: {
      identifier,
      displayName: identifier,
      purpose: "Test",
      credentials: [
        {
          id: "badge",
          credentialTypes: [issuer.credentialType],
          trustedIssuers,
          requiredClaims: [["given_name"]],
        },
      ],
    },
  });
  if (r.status !== 201) throw new Error(`policy: ${JSON.stringify(r.body)}`);
}

export const VALID_CLAIMS = {
  given_name: "Erika",
  family_name: "Mustermann",
  birthdate: "1984-01-26",
  employee_number: 4711,
  address: { country: "DE" },
};

/** A pending issuance transaction of `active`'s configuration with VALID_CLAIMS (the created resource). */
export async function createTransaction(
  t: Pick<TestServer, "baseUrl">,
  key: string,
  active: Pick<ActiveIssuer, "issuerId" | "configuration">,
  delivery?: Record<string, unknown>,
) {
  const created = await call(t, "POST", "/v1.0/issuance-transactions", {
    key,
    body: {
      credentialConfiguration: active.configuration,
      issuerId: active.issuerId,
      claims: VALID_CLAIMS,
      ...(delivery ? { delivery } : {}),
    },
  });
  if (created.status !== 201) throw new Error(`transaction: ${JSON.stringify(created.body)}`);
  return created.body.data as { id: string; credentialOffer: string; txCode?: string };
}

/** Issues one credential of `active`'s configuration through the whole OpenID4VCI flow. */
export async function issueCredential(t: Pick<TestServer, "baseUrl">, key: string, active: ActiveIssuer) {
  const created = await createTransaction(t, key, active);
  const redeemed = await redeemOffer(created.credentialOffer);
  if (redeemed.credentialRes.status !== 200)
    throw new Error(`credential: ${JSON.stringify(redeemed.credentialRes.body)}`);
  const completed = await call(t, "GET", `/v1.0/issuance-transactions/${created.id}`, { key });
  return {
    credential: redeemed.credentialRes.body.credentials[0].credential as string,
    credentialId: completed.body.data.credentialId as string,
    holder: redeemed.keys[0] as Awaited<ReturnType<typeof generateEs256KeyPair>>,
  };
}

/** Presents an issued credential to a new session of `policy` with the test wallet; the session as decided. */
export async function presentTo(
  t: Pick<TestServer, "baseUrl">,
  key: string,
  policy: string,
  issued: Awaited<ReturnType<typeof issueCredential>>,
  wallet: { matchAnyType?: boolean } = {},
): Promise<{ status: string; result: { reasons?: { code: string }[] } }> {
  const session = await call(t, "POST", "/v1.0/verifications", { key, body: { policy } });
  await presentWithTestWallet({
    authorizationRequestUri: session.body.data.authorizationRequestUri,
    fetch: (input, init) => fetch(input, init),
    holderPrivateKey: issued.holder.privateJwk,
    credential: issued.credential,
    ...wallet,
  });
  const read = await call(t, "GET", `/v1.0/verification-sessions/${session.body.data.id}`, { key });
  return read.body.data;
}
