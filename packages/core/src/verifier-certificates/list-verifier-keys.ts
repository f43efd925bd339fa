import type { UnitOfWork } from "@cred/db";
import { verifierCertificateRepository } from "./verifier-certificate-repository";

/** A verifier key (a certificate's, or a pending access-certificate request's) as the operator's CLI lists it. */
export interface ListedVerifierKey {
  tenantId: string;
  environment: string;
  certificateId: string;
  /** `request_signing`: the key request objects are signed with; `pending_request`: a CSR's, awaiting its certificate. */
  use: "request_signing" | "pending_request";
  provider: string;
  /** The provider's reference (a PKCS#11 URI), or null (software). */
  providerKeyRef: string | null;
}

/** Every verifier key across tenants, optionally of one tenant or one provider (`issuer-keys list`). */
export async function listVerifierKeysAcrossTenants(
  db: UnitOfWork,
  filter: { tenantId?: string; provider?: string } = {},
): Promise<ListedVerifierKey[]> {
  const rows = await verifierCertificateRepository.listKeysAcrossTenants(db, filter);
  const keys: ListedVerifierKey[] = [];
  for (const row of rows) {
    const base = { tenantId: row.tenantId, environment: row.environment, certificateId: row.id };
    keys.push({
      ...base,
      use: "request_signing",
      provider: row.keyProvider ?? "software",
      providerKeyRef: row.providerKeyRef,
    });
    if (row.pendingPrivateKeyCipher !== null || row.pendingProviderKeyRef !== null)
      keys.push({
        ...base,
        use: "pending_request",
        provider: row.pendingKeyProvider ?? "software",
        providerKeyRef: row.pendingProviderKeyRef,
      });
  }
  return filter.provider ? keys.filter((key) => key.provider === filter.provider) : keys;
}
