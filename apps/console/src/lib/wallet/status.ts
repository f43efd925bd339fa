import { getListFromStatusListJWT } from "@sd-jwt/jwt-status-list";
import { decodeJwt } from "jose";
import { asObject, failure, send, WalletError } from "./http";
import { verifyIssuerSignature } from "./trust";

export type CredentialStatus = "valid" | "revoked" | "suspended" | `status ${number}` | "no status";

/** Token Status List §7: 0x00 VALID, 0x01 INVALID, 0x02 SUSPENDED; others are application specific. */
export function statusName(value: number): CredentialStatus {
  if (value === 0) return "valid";
  if (value === 1) return "revoked";
  if (value === 2) return "suspended";
  return `status ${value}`;
}

/** Where a credential's status is (`status.status_list`), if it has one. */
export function statusReference(claims: Record<string, unknown>): { idx: number; uri: string } | null {
  const list = asObject(asObject(claims.status).status_list);
  if (typeof list.idx !== "number" || typeof list.uri !== "string") return null;
  return { idx: list.idx, uri: list.uri };
}

/**
 * Fetches the status list token (`application/statuslist+jwt`), checks its issuer's signature and that
 * its `sub` is the URI fetched (Token Status List §8.3), and reads the credential's entry.
 */
export async function fetchStatus(
  claims: Record<string, unknown>,
  issuer: string,
): Promise<CredentialStatus> {
  const reference = statusReference(claims);
  if (!reference) return "no status";
  const answer = await send(reference.uri, { headers: { accept: "application/statuslist+jwt" } });
  if (answer.status !== 200) throw failure("Fetching the status list", answer);
  const token = answer.text.trim();
  await verifyIssuerSignature(token, issuer);
  const payload = decodeJwt(token);
  if (payload.sub !== reference.uri) throw new WalletError("The status list token is for another URI.");
  if (typeof payload.exp === "number" && payload.exp * 1000 < Date.now()) {
    throw new WalletError("The status list token has expired.");
  }
  return statusName(getListFromStatusListJWT(token).getStatus(reference.idx));
}
