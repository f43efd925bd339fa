import type { SecretBox } from "../../shared/secret-box";

/**
 * Server-provided DPoP nonces (RFC 9449 §8 at the token and PAR endpoints, §9 at the credential and
 * notification endpoints; one nonce serves both, since the issuer is its own authorization server).
 * A nonce is self-contained: expiry (6 bytes, seconds) ‖ a 16-byte MAC over it and the issuer id,
 * base64url. So handing one out writes nothing, a nonce of one issuer is no good at another, and any
 * unexpired nonce is accepted: it bounds how far ahead a proof can be made, while the proof's `jti`
 * keeps it single use.
 */
const PURPOSE = "dpop nonce";
const EXPIRY_BYTES = 6;
const MAC_BYTES = 16;
/** How long a nonce is accepted; a fresh one comes with every response of an issuer that requires them. */
export const DPOP_NONCE_LIFETIME_SECONDS = 300;

export interface DpopNonces {
  /** A fresh nonce for the `DPoP-Nonce` header. */
  issue(): string;
  /** Whether a proof's `nonce` is one of this issuer's, unexpired. */
  accepts(nonce: string | undefined): boolean;
}

/** What a nonce's MAC covers: its expiry and the issuer it is for. */
const macInput = (expiry: Buffer, issuerId: string) => Buffer.concat([expiry, Buffer.from(issuerId, "utf8")]);

/** The nonces of an issuer that requires them (`requireDpopNonce`), else undefined. */
export function dpopNoncesOf(
  secretBox: SecretBox,
  issuer: { id: string; requireDpopNonce: boolean },
  clock: () => number = Date.now,
): DpopNonces | undefined {
  if (!issuer.requireDpopNonce) return undefined;
  return {
    issue() {
      const expiry = Buffer.alloc(EXPIRY_BYTES);
      expiry.writeUIntBE(Math.floor(clock() / 1000) + DPOP_NONCE_LIFETIME_SECONDS, 0, EXPIRY_BYTES);
      const mac = secretBox.mac(PURPOSE, macInput(expiry, issuer.id)).subarray(0, MAC_BYTES);
      return Buffer.concat([expiry, mac]).toString("base64url");
    },
    accepts(nonce) {
      if (nonce === undefined) return false;
      const raw = Buffer.from(nonce, "base64url");
      if (raw.length !== EXPIRY_BYTES + MAC_BYTES || raw.toString("base64url") !== nonce) return false;
      const expiry = raw.subarray(0, EXPIRY_BYTES);
      if (!secretBox.macMatches(PURPOSE, macInput(expiry, issuer.id), raw.subarray(EXPIRY_BYTES)))
        return false;
      return expiry.readUIntBE(0, EXPIRY_BYTES) * 1000 > clock();
    },
  };
}

/** The `DPoP-Nonce` header of a response of an issuer that requires nonces (RFC 9449 §8.2), else none. */
export function dpopNonceHeader(nonces: DpopNonces | undefined): Record<string, string> {
  return nonces ? { "DPoP-Nonce": nonces.issue() } : {};
}
