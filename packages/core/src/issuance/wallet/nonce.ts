import { pooledRandomBytes } from "@cred/oid4vc";
import { hashSecret, type SecretBox } from "../../shared/secret-box";

/**
 * `c_nonce` values (OpenID4VCI §7) are self-contained: expiry (6 bytes, seconds) ‖ 16 random bytes ‖
 * a 16-byte MAC over both and the id of the issuer whose nonce endpoint handed it out, base64url. The
 * nonce endpoint therefore writes nothing; a nonce is good at its own issuer only (one wallet's nonce
 * from one issuer proves nothing to another, of the same tenant or not); single use is kept by
 * recording each *spent* nonce (hashed, until its expiry) in the same statement that issues the
 * credentials, so a replay — even a concurrent one — finds it already there.
 */
const PURPOSE = "vci c_nonce";
const EXPIRY_BYTES = 6;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const BODY_BYTES = EXPIRY_BYTES + RANDOM_BYTES;

export interface CheckedNonce {
  /** What the spent-nonce record is keyed by. */
  valueHash: string;
  expiresAt: Date;
}

/** What a nonce's MAC covers: its body (expiry and randomness) and the issuer it is for. */
const macInput = (body: Buffer, issuerId: string) => Buffer.concat([body, Buffer.from(issuerId, "utf8")]);

/** A fresh `c_nonce` of the issuer `issuerId`, for its nonce endpoint. */
export function issueNonce(
  secretBox: SecretBox,
  issuerId: string,
  lifetimeSeconds: number,
  now = new Date(),
) {
  const body = Buffer.alloc(BODY_BYTES);
  body.writeUIntBE(Math.floor(now.getTime() / 1000) + lifetimeSeconds, 0, EXPIRY_BYTES);
  pooledRandomBytes(RANDOM_BYTES).copy(body, EXPIRY_BYTES);
  const mac = secretBox.mac(PURPOSE, macInput(body, issuerId)).subarray(0, MAC_BYTES);
  return { c_nonce: Buffer.concat([body, mac]).toString("base64url") };
}

/**
 * The nonce's record when it is one the issuer `issuerId` handed out and unexpired (not whether it was
 * spent), else null.
 */
export function checkNonce(
  secretBox: SecretBox,
  issuerId: string,
  nonce: string,
  now = new Date(),
): CheckedNonce | null {
  const raw = Buffer.from(nonce, "base64url");
  if (raw.length !== BODY_BYTES + MAC_BYTES || raw.toString("base64url") !== nonce) return null;
  const body = raw.subarray(0, BODY_BYTES);
  if (!secretBox.macMatches(PURPOSE, macInput(body, issuerId), raw.subarray(BODY_BYTES))) return null;
  const expiresAt = new Date(body.readUIntBE(0, EXPIRY_BYTES) * 1000);
  if (expiresAt <= now) return null;
  return { valueHash: hashSecret(nonce), expiresAt };
}
