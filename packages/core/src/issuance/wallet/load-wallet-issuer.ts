import type { UnitOfWork } from "@cred/db";
import { OAuthError } from "@cred/oid4vc";
import { activeIssuer } from "../../issuers";
import { tenantStatusRepository } from "../../rpc/tenant-status-repository";
import type { Caches } from "../../shared/caches";

/** The issuer behind a wallet-facing URL; only active issuers face wallets. */
export async function loadWalletIssuer(db: UnitOfWork, caches: Caches, issuerId: string) {
  const issuer = await activeIssuer(db, caches, issuerId);
  if (issuer?.status !== "active") return null;
  return issuer;
}

export type WalletIssuer = NonNullable<Awaited<ReturnType<typeof loadWalletIssuer>>>;

/**
 * Refuses a wallet's step towards a new credential (offer, PAR, authorization, token, nonce, challenge,
 * credential) while the issuer's tenant is suspended: 403 `access_denied` (docs/api/tenants.md). Its
 * metadata, keys, type metadata and status lists stay served, so credentials issued before still verify.
 */
export async function assertIssuerTenantActive(db: UnitOfWork, caches: Caches, issuer: WalletIssuer) {
  if (await tenantStatusRepository.isSuspended(db, caches, issuer.tenantId)) {
    throw new OAuthError(
      "access_denied",
      "The credential issuer is suspended by the platform operator: it issues no credentials until it is reactivated.",
      { status: 403 },
    );
  }
}
