import type { UnitOfWork } from "@cred/db";
import { activeIssuer } from "../../issuers";
import type { Caches } from "../../shared/caches";

/** The issuer behind a wallet-facing URL; only active issuers face wallets. */
export async function loadWalletIssuer(db: UnitOfWork, caches: Caches, issuerId: string) {
  const issuer = await activeIssuer(db, caches, issuerId);
  if (issuer?.status !== "active") return null;
  return issuer;
}

export type WalletIssuer = NonNullable<Awaited<ReturnType<typeof loadWalletIssuer>>>;
