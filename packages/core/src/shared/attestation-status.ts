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
import { type Caches, cacheSpec } from "./caches";
import type { CoreConfig } from "./context";
import { OutboundFetchError, outboundGet } from "./outbound-fetch";
import { keepStatusListUntil, STATUS_TOKEN_MAX_BYTES } from "./remote-status-list";
import { chainUnderTrustedRoots, keyUnderTrustedRoots } from "./x5c-chain";

type FetchConfig = Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">;
/** What fetching and verifying attesters' status lists needs: the outbound policy and the caches. */
export interface AttestationStatusDeps {
  config: FetchConfig;
  caches: Caches;
}

/** Decompressed: 1 MiB holds 8 million 1-bit entries, more than any attester's list needs. */
const LIST_MAX_BYTES = 1024 * 1024;
/** A list that could not be fetched or verified is not asked for again before this. */
const FAILURE_TTL_MS = 30_000;

interface VerifiedList {
  bits: StatusListBits;
  bytes: Uint8Array;
}
/** A verified list, or why there is none, and until when that holds. */
interface ListEntry {
  list: VerifiedList | string;
  expires: number;
}

/** By URI and by the root the list was verified under (each entry until its own `expires`). */
const ATTESTATION_STATUS_LISTS = cacheSpec<ListEntry>("shared.attestationStatusLists", { max: 64 });
/** Fetches in progress, one per list and root: concurrent requests wait for the same one. */
const ATTESTATION_STATUS_FETCHES = cacheSpec<Promise<ListEntry>>("shared.attestationStatusFetches", {
  max: 1000,
});

const listKey = (uri: string, root: string) =>
  createHash("sha256")
    .update(JSON.stringify([uri, root]))
    .digest("base64url");

async function verifiedList(deps: AttestationStatusDeps, root: string, uri: string, now: number) {
  const key = listKey(uri, root);
  const lists = deps.caches.of(ATTESTATION_STATUS_LISTS);
  const inFlight = deps.caches.of(ATTESTATION_STATUS_FETCHES);
  const cached = lists.peek(key);
  if (cached && cached.expires > now) return cached.list;
  let pending = inFlight.peek(key);
  if (!pending) {
    pending = fetchList(deps, root, uri, now).then((entry) => {
      lists.set(key, entry);
      return entry;
    });
    inFlight.set(key, pending);
    pending.finally(() => inFlight.delete(key)).catch(() => {});
  }
  return (await pending).list;
}

async function fetchList(
  { config, caches }: AttestationStatusDeps,
  root: string,
  uri: string,
  now: number,
): Promise<ListEntry> {
  const failed = (why: string): ListEntry => ({ list: why, expires: Date.now() + FAILURE_TTL_MS });
  let token: string;
  try {
    token = (
      await outboundGet(config, uri, { accept: STATUS_LIST_MEDIA_TYPE, maxBytes: STATUS_TOKEN_MAX_BYTES })
    ).trim();
  } catch (error) {
    if (error instanceof OutboundFetchError)
      return failed(`its status list could not be fetched: ${error.message}`);
    throw error;
  }
  let signer: Awaited<ReturnType<typeof keyUnderTrustedRoots>>;
  try {
    signer = await keyUnderTrustedRoots(caches, decodeJwtUnverified(token).header, [root], now);
  } catch {
    return failed("its status list token is malformed");
  }
  if (!signer) return failed("its status list token is not signed under the attester's root (x5c)");
  try {
    const list = await verifyStatusListToken(token, signer, {
      expectedSub: uri,
      now: new Date(now),
      maxBytes: LIST_MAX_BYTES,
    });
    return { list: { bits: list.bits, bytes: list.bytes }, expires: keepStatusListUntil(list, now) };
  } catch (error) {
    if (error instanceof StatusListTokenError)
      return failed(`its status list token is not acceptable: ${error.message}`);
    throw error;
  }
}

/**
 * Why an attestation (a wallet attestation, a key attestation) cannot be accepted for its status
 * (IETF Token Status List), or null when it is valid. The list token is fetched under the outbound URL
 * policy, must be signed by a key whose `x5c` chains to the trusted root the attestation itself chains
 * to (HAIP has status list tokens carry `x5c`; another trusted provider cannot speak for this one), and
 * must name the list's URI as `sub`. Lists are cached per URI and root for their `ttl` (default 300 s,
 * at most 1 h, never past `exp`), one fetch at a time. A list that cannot be fetched or verified is a
 * reason too, remembered for 30 s: the status is then unknown, and an attester that publishes a status
 * means it to be checked.
 */
async function attestationStatusProblem(
  deps: AttestationStatusDeps,
  attesterRoot: string,
  reference: StatusListReference,
  now: number,
): Promise<string | null> {
  const list = await verifiedList(deps, attesterRoot, reference.uri, now);
  if (typeof list === "string") return `has a status that cannot be checked: ${list}`;
  if (reference.idx >= (list.bytes.length * 8) / list.bits)
    return "has a status index beyond the end of its status list";
  const value = getStatus(list.bytes, list.bits, reference.idx);
  if (value === 0) return null;
  if (value === 1) return "has been revoked";
  if (value === 2) return "is suspended";
  return `has status ${value}, which is not valid`;
}

/**
 * How an attestation verifier finds its attester (`key`: the `x5c` chain must end at one of `roots`),
 * remembering the root it chained to, so that `statusProblem` then holds the attestation's status list
 * to that same root (see `attestationStatusProblem`; null when it has no status).
 */
export function trustedAttester(deps: AttestationStatusDeps, roots: readonly string[], now: number) {
  let attesterRoot: string | undefined;
  return {
    key: async (header: { x5c?: unknown }) => {
      const chain = await chainUnderTrustedRoots(deps.caches, header, roots, now);
      attesterRoot = chain?.root;
      return chain?.key ?? null;
    },
    statusProblem: async (status: StatusListReference | undefined) =>
      status && attesterRoot ? attestationStatusProblem(deps, attesterRoot, status, now) : null,
  };
}
