import { redeemOffer } from "../../apps/api/test/wallet-client";
import { apiOrigin, bootstrapCredentials, unique } from "./env";

const API_VERSION = "2026-08-30";

/** One REST call with the bootstrap API key (sandbox, every scope); the body of a 2xx, else it throws. */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const url = new URL(path, apiOrigin());
  if (path.startsWith("/management/")) url.searchParams.set("api-version", API_VERSION);
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `ApiKey ${bootstrapCredentials().apiKey}`,
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface ActiveIssuer {
  issuerId: string;
  issuerName: string;
  configuration: string;
}

/** Organisation → issuer → credential configuration → activation, through the API (names unique per run). */
export async function activeIssuer(prefix: string): Promise<ActiveIssuer> {
  const suffix = unique(prefix);
  const organisation = await api("POST", "/management/organisations", {
    reference: `org-${suffix}`,
    displayName: `Organisation ${suffix}`,
  });
  const issuerName = `Issuer ${suffix}`;
  const issuer = await api("POST", "/management/issuers", {
    organisationReference: organisation.data.reference,
    displayName: issuerName,
    display: [{ locale: "en", name: issuerName }],
  });
  const issuerId = issuer.data.id as string;
  const configuration = await api("POST", "/management/credential-configurations", {
    identifier: `card-${suffix}`,
    displayName: "Member card",
    issuerId,
    schemaId: "member-card-v1",
    claims: [{ path: ["given_name"], type: "string", required: true }],
  });
  await api("POST", `/management/issuers/${issuerId}/activate`);
  return { issuerId, issuerName, configuration: configuration.data.identifier as string };
}

export interface Transaction {
  id: string;
  status: string;
  credentialOffer: string | null;
  credentialId: string | null;
}

/** A pending issuance transaction of the issuer's configuration (pre-authorized code, no tx_code). */
export async function createOffer(
  issuer: ActiveIssuer,
  references: { externalSubjectReference?: string; callbackReference?: string } = {},
): Promise<Transaction> {
  const created = await api("POST", "/v1.0/issuance-transactions", {
    credentialConfiguration: issuer.configuration,
    issuerId: issuer.issuerId,
    claims: { given_name: "Erika" },
    ...references,
  });
  return created.data as Transaction;
}

/** An offer redeemed by the test wallet: the completed transaction, naming its credential. */
export async function issueCredential(
  issuer: ActiveIssuer,
  references: { externalSubjectReference?: string; callbackReference?: string } = {},
): Promise<Transaction & { credentialId: string }> {
  const offer = await createOffer(issuer, references);
  const flow = await redeemOffer(offer.credentialOffer ?? "");
  if (flow.credentialRes.status !== 200)
    throw new Error(`credential: ${flow.credentialRes.status} ${JSON.stringify(flow.credentialRes.body)}`);
  const completed = await api("GET", `/v1.0/issuance-transactions/${offer.id}`);
  return completed.data as Transaction & { credentialId: string };
}
