import type { UnitOfWork } from "@cred/db";
import { activeIssuerCache } from "../../issuers";

/** The issuer behind a wallet-facing URL; only active issuers face wallets. */
export async function loadWalletIssuer(db: UnitOfWork, issuerId: string) {
  const issuer = await activeIssuerCache.issuer(db, issuerId);
  if (issuer?.status !== "active") return null;
  return issuer;
}

export type WalletIssuer = NonNullable<Awaited<ReturnType<typeof loadWalletIssuer>>>;
