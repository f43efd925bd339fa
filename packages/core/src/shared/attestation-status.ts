import { createHash } from "node:crypto";
import {
  decodeJwtUnverified,
  getStatus,
  STATUS_LIST_MEDIA_TYPE,
  type StatusListBits,
  type StatusListReference,
  StatusListTokenError,
  verifyStatusListToken,
} from "@cred/oid4vc";
import type { CoreConfig } from "../context";
import { OutboundFetchError, outboundGet } from "../verification/outbound-fetch";
import { BoundedMap } from "./bounded-map";
import { keyUnderTrustedRoots } from "./x5c-chain";

const LIST_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_TTL_SECONDS = 300;
const MAX_TTL_SECONDS = 3600;

interface VerifiedList {
  bits: StatusListBits;
  bytes: Uint8Array;
  expires: number;
}

/** Verified lists by URI and by the roots they were verified under. */
const lists = new BoundedMap<string, VerifiedList>(200);

const listKey = (uri: string, roots: readonly string[]) =>
  createHash("sha256")
    .update(JSON.stringify([uri, roots]))
    .digest("base64url");

async function verifiedList(
  config: Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">,
  roots: readonly string[],
  uri: string,
  now: number,
): Promise<VerifiedList | string> {
  const key = listKey(uri, roots);
  const cached = lists.get(key);
  if (cached && cached.expires > now) return cached;
  let token: string;
  try {
    token = (
      await outboundGet(config, uri, { accept: STATUS_LIST_MEDIA_TYPE, maxBytes: LIST_MAX_BYTES })
    ).trim();
  } catch (error) {
    if (error instanceof OutboundFetchError) return `its status list could not be fetched: ${error.message}`;
    throw error;
  }
  let signer: Awaited<ReturnType<typeof keyUnderTrustedRoots>>;
  try {
    signer = await keyUnderTrustedRoots(decodeJwtUnverified(token).header, roots, now);
  } catch {
    return "its status list token is malformed";
  }
  if (!signer) return "its status list token is not signed under a trusted root (x5c)";
  try {
    const list = await verifyStatusListToken(token, signer, { expectedSub: uri, now: new Date(now) });
    const ttlMs = Math.min(list.ttl ?? DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS) * 1000;
    const expires = Math.min(
      now + ttlMs,
      list.exp !== undefined ? list.exp * 1000 : Number.POSITIVE_INFINITY,
    );
    const verified = { bits: list.bits, bytes: list.bytes, expires };
    lists.set(key, verified);
    return verified;
  } catch (error) {
    if (error instanceof StatusListTokenError)
      return `its status list token is not acceptable: ${error.message}`;
    throw error;
  }
}

/**
 * Why an attestation (a wallet attestation, a key attestation) cannot be accepted for its status
 * (IETF Token Status List), or null when it is valid. The list token is fetched under the outbound URL
 * policy, must be signed by a key whose `x5c` chains to one of the same trusted roots as the
 * attestation (HAIP has status list tokens carry `x5c`), and must name the list's URI as `sub`. Verified
 * lists are cached per URI and roots for their `ttl` (default 300 s, at most 1 h, never past `exp`).
 * A list that cannot be fetched or verified is a reason too: the status is then unknown, and an
 * attester that publishes a status means it to be checked.
 */
export async function attestationStatusProblem(
  config: Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">,
  trustedRoots: readonly string[],
  reference: StatusListReference,
  now: number,
): Promise<string | null> {
  const list = await verifiedList(config, trustedRoots, reference.uri, now);
  if (typeof list === "string") return `has a status that cannot be checked: ${list}`;
  if (reference.idx >= (list.bytes.length * 8) / list.bits)
    return "has a status index beyond the end of its status list";
  const value = getStatus(list.bytes, list.bits, reference.idx);
  if (value === 0) return null;
  if (value === 1) return "has been revoked";
  if (value === 2) return "is suspended";
  return `has status ${value}, which is not valid`;
}
