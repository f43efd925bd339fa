import type { UnitOfWork } from "@cred/db";
import { DpopNonceError, DpopProofError, dpopResourceError, OAuthError } from "@cred/oid4vc";
import type { Caches } from "../shared/caches";
import { hashSecret } from "../shared/secret-box";
import { accessTokenRepository } from "./access-token-repository";
import { checkDpopProof } from "./dpop";
import type { DpopNonces } from "./issuer-nonces";
import { type IssuanceTransactionRecord, takeRedeemedTransaction } from "./redeemed-transactions";

/** An access token as the wallet presented it: its scheme (`Authorization: Bearer` or `DPoP`) and value. */
export interface PresentedAccessToken {
  scheme: "Bearer" | "DPoP";
  token: string;
}

/**
 * What a wallet presented to a protected endpoint: its access token and the DPoP proofs it sent (RFC
 * 9449 §4.3: exactly one is good; none, where the token is a bearer token).
 */
export interface PresentedCredentials {
  accessToken: PresentedAccessToken;
  dpopProofs: readonly string[];
}

/** A wallet request to a protected endpoint: what it presented, its method and URL. */
export interface ProtectedRequest extends PresentedCredentials {
  method: string;
  url: string;
  /** The issuer takes DPoP-bound tokens only (`requireDpop`): a bearer token minted before is refused. */
  requireDpop?: boolean;
  /** The issuer's nonces, where it requires them in DPoP proofs (`requireDpopNonce`). */
  dpopNonces?: DpopNonces | undefined;
}

/** 401 `invalid_token` with a `Bearer` challenge naming it (RFC 6750 §3.1). */
export function invalidToken(description: string) {
  return new OAuthError("invalid_token", description, {
    status: 401,
    challenge: { schemes: ["Bearer"], withError: true },
  });
}

/**
 * Finds the transaction an access token was issued for (remembered from the token endpoint, else read),
 * or throws `invalid_token` (401). A DPoP-bound token must come as `Authorization: DPoP` with a proof
 * by its key for this request (RFC 9449 §7); a bearer token as `Authorization: Bearer`.
 */
export async function transactionForToken(
  db: UnitOfWork,
  caches: Caches,
  issuerId: string,
  request: ProtectedRequest,
): Promise<{ tx: IssuanceTransactionRecord; tokenHash: string }> {
  const presented = request.accessToken;
  const tokenHash = hashSecret(presented.token);
  const found =
    takeRedeemedTransaction(caches, tokenHash) ??
    (await accessTokenRepository.transactionOfToken(db, tokenHash, new Date()));
  if (!found || found.row.issuerId !== issuerId)
    throw invalidToken("The access token is invalid or expired.");
  await checkTokenBinding(db, presented, found.dpopJkt, request);
  return { tx: found.row, tokenHash };
}

async function checkTokenBinding(
  db: UnitOfWork,
  presented: PresentedAccessToken,
  dpopJkt: string | null,
  request: ProtectedRequest,
) {
  if (dpopJkt === null) {
    if (request.requireDpop)
      throw dpopResourceError("invalid_token", "This credential issuer takes DPoP-bound access tokens only.");
    if (presented.scheme === "DPoP")
      throw dpopResourceError("invalid_token", "This access token is not DPoP-bound; send it as Bearer.");
    return;
  }
  if (presented.scheme !== "DPoP")
    throw dpopResourceError(
      "invalid_token",
      "This access token is DPoP-bound; send it as DPoP with a proof.",
    );
  if (request.dpopProofs.length === 0)
    throw dpopResourceError("invalid_dpop_proof", "A DPoP proof is required.");
  let proof: Awaited<ReturnType<typeof checkDpopProof>>;
  try {
    proof = await checkDpopProof(db, request.dpopProofs, {
      method: request.method,
      url: request.url,
      accessToken: presented.token,
      nonces: request.dpopNonces,
    });
  } catch (error) {
    if (error instanceof DpopProofError) throw dpopResourceError("invalid_dpop_proof", error.message);
    if (error instanceof DpopNonceError)
      throw dpopResourceError("use_dpop_nonce", error.message, request.dpopNonces?.issue());
    throw error;
  }
  if (proof.jkt !== dpopJkt)
    throw dpopResourceError(
      "invalid_dpop_proof",
      "The DPoP proof is not signed by the key the token is bound to.",
    );
}
