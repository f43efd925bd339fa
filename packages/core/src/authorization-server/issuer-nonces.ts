import { OAuthError } from "@cred/oid4vc";
import type { SecretBox } from "../shared/secret-box";

/**
 * Server-provided nonces of an issuer, in two roles that share one family of values:
 * - DPoP nonces (RFC 9449 §8 at the token and PAR endpoints, §9 at the credential and notification
 *   endpoints; one nonce serves both, since the issuer is its own authorization server), where the
 *   issuer sets `requireDpopNonce`;
 * - client attestation challenges (draft-ietf-oauth-attestation-based-client-auth §8: the challenge
 *   endpoint, the `OAuth-Client-Attestation-Challenge` header and the PoP's `challenge`), where its
 *   `walletAttestation.requireChallenge` is set. A wallet that uses the DPoP proof as its attestation PoP
 *   puts the challenge in the proof's `nonce`, so the two must be interchangeable.
 * A nonce is self-contained: expiry (6 bytes, seconds) ‖ a 16-byte MAC over it and the issuer id,
 * base64url. So handing one out writes nothing, a nonce of one issuer is no good at another, and any
 * unexpired nonce is accepted: it bounds how far ahead a proof can be made, while the proof's `jti`
 * keeps it single use.
 */
// The label predates the attestation challenges; changing it would void every outstanding nonce.
const PURPOSE = "dpop nonce";
const EXPIRY_BYTES = 6;
const MAC_BYTES = 16;
/** How long a nonce is accepted; a fresh one comes with every response of an issuer that requires them. */
export const ISSUER_NONCE_LIFETIME_SECONDS = 300;

export interface IssuerNonces {
  /** A fresh nonce (for `DPoP-Nonce`, `OAuth-Client-Attestation-Challenge` or the challenge endpoint). */
  issue(): string;
  /** Whether a proof's `nonce` or `challenge` is one of this issuer's, unexpired. */
  accepts(nonce: string | undefined): boolean;
}
export type DpopNonces = IssuerNonces;

/** What a nonce's MAC covers: its expiry and the issuer it is for. */
const macInput = (expiry: Buffer, issuerId: string) => Buffer.concat([expiry, Buffer.from(issuerId, "utf8")]);

/** The issuer's nonces, whichever role asks for them. */
export function issuerNonces(
  secretBox: SecretBox,
  issuerId: string,
  clock: () => number = Date.now,
): IssuerNonces {
  return {
    issue() {
      const expiry = Buffer.alloc(EXPIRY_BYTES);
      expiry.writeUIntBE(Math.floor(clock() / 1000) + ISSUER_NONCE_LIFETIME_SECONDS, 0, EXPIRY_BYTES);
      const mac = secretBox.mac(PURPOSE, macInput(expiry, issuerId)).subarray(0, MAC_BYTES);
      return Buffer.concat([expiry, mac]).toString("base64url");
    },
    accepts(nonce) {
      if (nonce === undefined) return false;
      const raw = Buffer.from(nonce, "base64url");
      if (raw.length !== EXPIRY_BYTES + MAC_BYTES || raw.toString("base64url") !== nonce) return false;
      const expiry = raw.subarray(0, EXPIRY_BYTES);
      if (!secretBox.macMatches(PURPOSE, macInput(expiry, issuerId), raw.subarray(EXPIRY_BYTES)))
        return false;
      return expiry.readUIntBE(0, EXPIRY_BYTES) * 1000 > clock();
    },
  };
}

/** The nonces of an issuer that requires them in DPoP proofs (`requireDpopNonce`), else undefined. */
export function dpopNoncesOf(
  secretBox: SecretBox,
  issuer: { id: string; requireDpopNonce: boolean },
  clock?: () => number,
): DpopNonces | undefined {
  return issuer.requireDpopNonce ? issuerNonces(secretBox, issuer.id, clock) : undefined;
}

/**
 * 400 asking the client to retry with a fresh nonce: `use_dpop_nonce` with a DPoP nonce at the token and
 * PAR endpoints (RFC 9449 §8), `use_attestation_challenge` with a challenge (attestation draft §9).
 */
export function useNonceError(
  code: string,
  message: string,
  fresh: { dpopNonce?: string } | { attestationChallenge?: string },
) {
  return new OAuthError(code, message, { status: 400, ...fresh });
}
