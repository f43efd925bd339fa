import type { Db } from "@cred/db";
import { OAuthError } from "@cred/oid4vc";
import { activeIssuerCache } from "../../issuers";

/** The issuer behind a wallet-facing URL; only active issuers face wallets. */
export async function loadWalletIssuer(db: Db, issuerId: string) {
  const issuer = await activeIssuerCache.issuer(db, issuerId);
  if (issuer?.status !== "active") return null;
  return issuer;
}

export type WalletIssuer = NonNullable<Awaited<ReturnType<typeof loadWalletIssuer>>>;

export const NO_STORE = { "Cache-Control": "no-store" } as const;

/** 401 `invalid_token` with a `Bearer` challenge naming it (RFC 6750 §3.1). */
export function invalidToken(description: string) {
  return new OAuthError("invalid_token", description, {
    status: 401,
    challenge: { schemes: ["Bearer"], withError: true },
  });
}

/**
 * 401 for a request without any credentials: RFC 6750 §3.1 has the challenge carry no error code then
 * (`WWW-Authenticate: Bearer`); the body still says what is missing.
 */
export function missingToken() {
  return new OAuthError("invalid_token", "An access token is required (Bearer, or DPoP with a proof).", {
    status: 401,
    // RFC 9449 §7.1: a resource that takes both schemes names both.
    challenge: { schemes: ["Bearer", "DPoP"], withError: false },
  });
}
