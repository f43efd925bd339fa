import { type StatusListBits, signStatusListToken } from "@cred/oid4vc";
import type { AppDeps } from "../context";
import { issuanceCatalog } from "../issuance/issuance-catalog";
import { issuerUrls } from "../issuance/issuance-urls";
import { issuerSigningKey } from "../issuance/issuer-signing-keys";

interface CachedToken {
  version: number;
  token: string;
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

/** Signed tokens per list and version: a revocation bumps the version, so it shows on the next fetch. */
const cache = new Map<string, CachedToken>();
/**
 * Tokens being built, per list and version. Under a stream of revocations every fetch finds a new version;
 * fetches that arrive together share one read, compression and signature instead of each making their own
 * (which, measured, let the work per fetch grow with the queue and the service fall behind).
 */
const building = new Map<string, Promise<CachedToken | null>>();

/**
 * The status list token (`statuslist+jwt`) of an issuer's list, signed with the issuer's key.
 * Only the list's version is read when a cached token is still fresh.
 */
export async function statusListToken(
  deps: Pick<AppDeps, "config" | "secretBox" | "database">,
  issuerId: string,
  listId: string,
): Promise<{ token: string; ttl: number } | null> {
  const ttl = deps.config.issuance.statusListTtlSeconds;
  const { rows: heads } = await deps.database.fast.query<{ issuerId: string; version: number }>(
    `SELECT "issuerId", "version" FROM "StatusList" WHERE "id" = $1`,
    [listId],
  );
  const head = heads[0];
  if (!head || head.issuerId !== issuerId) return null;
  const cached = cache.get(listId);
  if (cached && cached.version >= head.version && cached.refreshAfter > Date.now())
    return { token: cached.token, ttl };

  const key = `${listId}@${head.version}`;
  let build = building.get(key);
  if (!build) {
    build = buildToken(deps, issuerId, listId).finally(() => building.delete(key));
    building.set(key, build);
  }
  const built = await build;
  return built && { token: built.token, ttl };
}

/** Reads the list as it is now (its version at least the one asked for), signs it, and caches it. */
async function buildToken(
  deps: Pick<AppDeps, "config" | "secretBox" | "database">,
  issuerId: string,
  listId: string,
): Promise<CachedToken | null> {
  const ttl = deps.config.issuance.statusListTtlSeconds;
  const { rows: lists } = await deps.database.fast.query<{ version: number; bits: number; data: Uint8Array }>(
    `SELECT "version", "bits", "data" FROM "StatusList" WHERE "id" = $1`,
    [listId],
  );
  const list = lists[0];
  const issuer = await issuanceCatalog.issuer(deps.database.prisma, issuerId);
  if (!list || !issuer) return null;
  const key = await issuerSigningKey(deps.secretBox, issuer);
  const now = Date.now();
  const previous = cache.get(listId);
  const changingFast = previous !== undefined && now - previous.builtAt < CHANGING_FAST_MS;
  const iat = Math.floor(now / 1000);
  const token = await signStatusListToken({
    privateKey: key.privateKey,
    kid: key.kid,
    sub: issuerUrls(deps.config, issuerId).statusList(listId),
    iat,
    exp: iat + 2 * ttl,
    ttl,
    bits: list.bits as StatusListBits,
    bytes: new Uint8Array(list.data),
    compressionLevel: changingFast ? FAST_LEVEL : undefined,
  });
  const entry = { version: list.version, token, refreshAfter: now + (ttl * 1000) / 2, builtAt: now };
  const current = cache.get(listId);
  if (!current || current.version <= entry.version) cache.set(listId, entry);
  return entry;
}
