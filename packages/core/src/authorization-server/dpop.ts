import type { UnitOfWork } from "@cred/db";
import {
  DpopNonceError,
  DpopProofError,
  tokenError,
  type VerifiedDpopProof,
  verifyDpopProof,
} from "@cred/oid4vc";
import { hashSecret } from "../shared/secret-box";
import { type DpopNonces, useNonceError } from "./issuer-nonces";
import { proofUseRepository } from "./proof-use-repository";

/** How old a proof's `iat` may be; a proof is remembered (against replay) for as long as it is accepted. */
const MAX_AGE_SECONDS = 300;
const FUTURE_SKEW_SECONDS = 60;

/**
 * The checked DPoP proof of a token or PAR request: the key it binds the access token or code to (RFC
 * 9449 §5, §10) and its `nonce` (the attestation challenge where the proof is the attestation's PoP); or
 * null without a proof where the issuer does not require one. A proof that fails, or one missing where
 * required, is 400 `invalid_dpop_proof`, and one without a fresh nonce where `nonces` are required is
 * 400 `use_dpop_nonce` with a `DPoP-Nonce` to retry with (§8).
 */
export async function dpopProofForTokenRequest(
  db: UnitOfWork,
  proofs: readonly string[],
  endpoint: string,
  required: boolean,
  nonces?: DpopNonces,
): Promise<{ jkt: string; nonce?: string } | null> {
  if (proofs.length === 0) {
    if (required)
      throw tokenError("invalid_dpop_proof", "This credential issuer requires DPoP: send a DPoP proof.");
    return null;
  }
  try {
    const { jkt, nonce } = await checkDpopProof(db, proofs, { method: "POST", url: endpoint, nonces });
    return { jkt, ...(nonce !== undefined ? { nonce } : {}) };
  } catch (error) {
    if (error instanceof DpopProofError) throw tokenError("invalid_dpop_proof", error.message);
    if (error instanceof DpopNonceError)
      throw useNonceError("use_dpop_nonce", error.message, freshNonce(nonces));
    throw error;
  }
}

/**
 * Checks a DPoP proof for a request (see `verifyDpopProof`), and its nonce where `nonces` are required,
 * then spends its `jti`: a proof is accepted once (RFC 9449 §11.1), in every process, for as long as
 * its `iat` would let it pass. Throws `DpopProofError`, or `DpopNonceError` (the proof is left unspent).
 */
export async function checkDpopProof(
  db: UnitOfWork,
  proofs: readonly string[],
  request: { method: string; url: string; accessToken?: string; nonces?: DpopNonces | undefined },
): Promise<VerifiedDpopProof> {
  // RFC 9449 §4.3: exactly one DPoP header.
  const [proof] = proofs;
  if (proof === undefined || proofs.length > 1) throw new DpopProofError("send exactly one DPoP header");
  const now = Date.now();
  const { nonces, ...target } = request;
  const verified = await verifyDpopProof(proof, {
    ...target,
    now: new Date(now),
    maxAgeSeconds: MAX_AGE_SECONDS,
    futureSkewSeconds: FUTURE_SKEW_SECONDS,
  });
  if (nonces && !nonces.accepts(verified.nonce))
    throw new DpopNonceError(
      verified.nonce === undefined
        ? "This credential issuer requires a nonce in DPoP proofs: use the DPoP-Nonce of this response."
        : "The DPoP proof's nonce is not current: use the DPoP-Nonce of this response.",
    );
  const forgetAfter = new Date((verified.iat + MAX_AGE_SECONDS + FUTURE_SKEW_SECONDS) * 1000);
  if (!(await proofUseRepository.spend(db, hashSecret(`${verified.jkt}:${verified.jti}`), forgetAfter)))
    throw new DpopProofError("the DPoP proof was already used; make a new one per request");
  return verified;
}

/** A fresh nonce of `nonces` for an error to carry (none where the issuer requires none). */
function freshNonce(nonces: DpopNonces | undefined): { dpopNonce?: string } {
  return nonces ? { dpopNonce: nonces.issue() } : {};
}
