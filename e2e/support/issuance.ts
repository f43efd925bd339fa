import { redeemOffer } from "../../apps/api/test/wallet-client";
import { cred } from "./client";
import { unique } from "./env";

export interface ActiveIssuer {
  issuerId: string;
  issuerName: string;
  configuration: string;
}

/** Organisation → issuer → credential configuration → activation, through the API (names unique per run). */
export async function activeIssuer(prefix: string): Promise<ActiveIssuer> {
  const suffix = unique(prefix);
  const { data: organisation } = await cred().post("/management/organisations", {
    body: { reference: `org-${suffix}`, displayName: `Organisation ${suffix}` },
  });
  const issuerName = `Issuer ${suffix}`;
  const { data: issuer } = await cred().post("/management/issuers", {
    body: {
      organisationReference: organisation.reference,
      displayName: issuerName,
      display: [{ locale: "en", name: issuerName }],
    },
  });
  const issuerId = issuer.id;
  const { data: configuration } = await cred().post("/management/credential-configurations", {
    body: {
      identifier: `card-${suffix}`,
      displayName: "Member card",
      issuerId,
      schemaId: "member-card-v1",
      claims: [{ path: ["given_name"], type: "string", required: true }],
    },
  });
  await cred().post("/management/issuers/{issuerId}/activate", { params: { path: { issuerId } } });
  return { issuerId, issuerName, configuration: configuration.identifier };
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
  const { data } = await cred().post("/v1.0/issuance-transactions", {
    body: {
      credentialConfiguration: issuer.configuration,
      issuerId: issuer.issuerId,
      claims: { given_name: "Erika" },
      ...references,
    },
  });
  return data;
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
  const { data: completed } = await cred().get("/v1.0/issuance-transactions/{transactionId}", {
    params: { path: { transactionId: offer.id } },
  });
  if (!completed.credentialId) throw new Error(`transaction ${offer.id} names no credential`);
  return { ...completed, credentialId: completed.credentialId };
}
