import type { UnitOfWork } from "@cred/db";
import { issuerKeyRepository } from "./issuer-key-repository";

/** An issuer key as the operator's CLI lists it: where it is held, never its private part. */
export interface ListedIssuerKey {
  tenantId: string;
  environment: string;
  issuerId: string;
  purpose: string;
  state: string;
  kid: string;
  provider: string;
  /** The provider's reference (a PKCS#11 URI), or null (software; a retired key whose private part is gone). */
  providerKeyRef: string | null;
  /** Whether a private part is still held (sealed here, or in the provider). */
  holdsPrivateKey: boolean;
  createdAt: string;
}

/** Every issuer key across tenants, optionally of one tenant or one provider (`issuer-keys list`). */
export async function listIssuerKeysAcrossTenants(
  db: UnitOfWork,
  filter: { tenantId?: string; provider?: string } = {},
): Promise<ListedIssuerKey[]> {
  const rows = await issuerKeyRepository.listAcrossTenants(db, filter);
  return rows.map((row) => ({
    tenantId: row.tenantId,
    environment: row.environment,
    issuerId: row.issuerId,
    purpose: row.purpose,
    state: row.state,
    kid: row.kid,
    provider: row.provider ?? "software",
    providerKeyRef: row.providerKeyRef,
    holdsPrivateKey: row.privateKeyCipher !== null || row.providerKeyRef !== null,
    createdAt: row.createdAt.toISOString(),
  }));
}
