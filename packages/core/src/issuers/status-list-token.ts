import { createHash } from "node:crypto";
import { type StatusListBits, signStatusListToken } from "@cred/oid4vc";
import { type Caches, cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { signingKeyOf } from "./issuer-signing-keys";
import { issuerUrls } from "./issuer-urls";
import { assembleStatusList } from "./status-list-chunks";
import { statusListTokenRepository } from "./status-list-token-repository";
import { chainEndSeconds, expWithinChain, signingCertificateInUse } from "./stored-signing-certificate";

interface CachedToken {
  version: number;
  token: string;
  /** Strong HTTP entity tag of this token: a fetch that names it gets 304 until the list is rebuilt. */
  etag: string;
  refreshAfter: number;
  builtAt: number;
}

/**
 * The list is compressed at the highest zlib level (RECOMMENDED by the Token Status List draft), except
 * while it is changing fast: a token built less than this long after the previous one uses level 6,
 * ~15× cheaper on a list with thousands of entries set and ~11% larger. Without this a stream of
 * revocations, each needing a new token, cost ~15 ms of CPU per revocation. The next build once the list
 * is quiet (at the latest when the cached token is refreshed, after half its ttl) is at the highest level again.
 */
const CHANGING_FAST_MS = 1_000;
const FAST_LEVEL = 6;

/**
 * Signed tokens per list and version: a revocation bumps the version, so it shows on the next fetch.
 * Bounded (a token is rebuilt on a miss).
 */
const statusListTokensCache = cacheSpec<CachedToken>("issuers.statusListToken", { max: 10_000 });
/**
 * Builds in progress, at most one per list, and the one queued behind it. A fetch may take a build whose
 * read of the list comes after its own read of the version: the running build if whoever started it had
 * seen at least that version, otherwise the queued one (which reads once the running one is done). Under
 * a stream of revocations every fetch finds a new version; this way builds run one after another, each
 * covering every revocation before it, instead of one per revocation side by side (measured: the work
 * per fetch then grew with the queue, and the service fell behind).
 */
interface Build {
  /** The highest version seen by the fetches that took this build; its read returns at least that. */
  atLeast: number;
  done: Promise<CachedToken | null>;
}
const runningBuilds = cacheSpec<Build>("issuers.statusListBuildRunning", { max: 100_000 });
const queuedBuilds = cacheSpec<Build>("issuers.statusListBuildQueued", { max: 100_000 });

function buildFor(caches: Caches, listId: string, version: number, build: () => Promise<CachedToken | null>) {
  const running = caches.of(runningBuilds);
  const queued = caches.of(queuedBuilds);
  const start = (atLeast: number): Build => {
    const b: Build = { atLeast, done: build() };
    running.set(listId, b);
    b.done
      .finally(() => {
        if (running.peek(listId) === b) running.delete(listId);
      })
      .catch(() => {});
    return b;
  };
  const now = running.peek(listId);
  if (!now) return start(version).done;
  if (now.atLeast >= version) return now.done;
  let next = queued.peek(listId);
  if (!next) {
    const waiting: Build = {
      atLeast: version,
      done: now.done
        .catch(() => null)
        .then(() => {
          queued.delete(listId);
          return start(waiting.atLeast).done;
        }),
    };
    next = waiting;
    queued.set(listId, next);
  }
  next.atLeast = Math.max(next.atLeast, version);
  return next.done;
}

/**
 * The status list token (`statuslist+jwt`) of an issuer's list, signed with the issuer's status list
 * signing key when it has a separate one, else its credential signing key.
 * Only the list's version is read when a cached token is still fresh.
 */
export async function statusListToken(
  deps: Pick<AppDeps, "config" | "secretBox" | "keyCustody" | "database" | "caches">,
  issuerId: string,
  listId: string,
): Promise<{ token: string; etag: string; ttl: number } | null> {
  const ttl = deps.config.issuance.statusListTtlSeconds;
  const head = await statusListTokenRepository.head(deps.database.root, listId);
  if (!head || head.issuerId !== issuerId) return null;
  const cache = deps.caches.of(statusListTokensCache);
  const cached = cache.peek(listId);
  if (cached && cached.version >= head.version && cached.refreshAfter > Date.now())
    return { token: cached.token, etag: cached.etag, ttl };

  const built = await buildFor(deps.caches, listId, head.version, () => buildToken(deps, issuerId, listId));
  return built && { token: built.token, etag: built.etag, ttl };
}

/** Reads the list as it is now (its version at least the one asked for), signs it, and caches it. */
async function buildToken(
  deps: Pick<AppDeps, "config" | "secretBox" | "keyCustody" | "database" | "caches">,
  issuerId: string,
  listId: string,
): Promise<CachedToken | null> {
  const ttl = deps.config.issuance.statusListTtlSeconds;
  const rows = await statusListTokenRepository.listWithSigningKey(deps.database.root, listId);
  const list = rows[0];
  if (!list) return null;
  const key = await signingKeyOf(
    deps,
    {
      id: issuerId,
      kid: list.kid,
      privateKeyCipher: list.privateKeyCipher,
      provider: list.provider,
      providerKeyRef: list.providerKeyRef,
    },
    // A separate status list key is kept beside the credential signing key, not in its place.
    list.purpose === "status_list_signing" ? `${issuerId}/status_list_signing` : issuerId,
  );
  const now = Date.now();
  const cache = deps.caches.of(statusListTokensCache);
  const previous = cache.peek(listId);
  const changingFast = previous !== undefined && now - previous.builtAt < CHANGING_FAST_MS;
  const iat = Math.floor(now / 1000);
  // A token with `x5c` is not valid past its chain, and is signed again (without it) by then.
  const certificate = signingCertificateInUse(list.certificate, now);
  const token = await signStatusListToken({
    privateKey: key.privateKey,
    kid: key.kid,
    ...(certificate ? { x5c: certificate.x5c } : {}),
    sub: issuerUrls(deps.config, issuerId).statusList(listId),
    iat,
    exp: expWithinChain(iat, 2 * ttl, certificate),
    ttl,
    bits: list.bits as StatusListBits,
    bytes: assembleStatusList(
      list.size,
      list.bits,
      rows.flatMap((r) => (r.chunk === null || r.data === null ? [] : [{ chunk: r.chunk, data: r.data }])),
    ),
    compressionLevel: changingFast ? FAST_LEVEL : undefined,
  });
  const etag = `"${createHash("sha256").update(token).digest("base64url").slice(0, 27)}"`;
  const refreshAfter = Math.min(now + (ttl * 1000) / 2, chainEndSeconds(certificate) * 1000);
  const entry = { version: list.version, token, etag, refreshAfter, builtAt: now };
  const current = cache.peek(listId);
  if (!current || current.version <= entry.version) cache.set(listId, entry);
  return entry;
}
