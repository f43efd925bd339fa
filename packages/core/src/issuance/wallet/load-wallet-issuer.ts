import type { UnitOfWork } from "@cred/db";
import { OAuthError } from "@cred/oid4vc";
import { activeIssuer } from "../../issuers";
import type { Caches } from "../../shared/caches";

/** The issuer behind a wallet-facing URL; only active issuers face wallets. */
export async function loadWalletIssuer(db: UnitOfWork, caches: Caches, issuerId: string) {
  const issuer = await activeIssuer(db, caches, issuerId);
  if (issuer?.status !== "active") return null;
  return issuer;
}

export type WalletIssuer = NonNullable<Awaited<ReturnType<typeof loadWalletIssuer>>>;

/** 401 `invalid_token` with a `Bearer` challenge naming it (RFC 6750 §3.1). */
export function invalidToken(description: string) {
  return new OAuthError("invalid_token", description, {
    status: 401,
    challenge: { schemes: ["Bearer"], withError: true },
  });
}
