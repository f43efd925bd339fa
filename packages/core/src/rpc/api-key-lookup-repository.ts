import type { Db, UnitOfWork } from "@cred/db";
import { type Caches, cacheSpec } from "../shared/caches";

export type ApiKeyRow = NonNullable<Awaited<ReturnType<Db["apiKey"]["findUnique"]>>>;

/**
 * Key rows by public prefix, for at most two seconds: saves a query on every API call. A revocation in
 * this process drops the entry once it commits (api-keys/api-key-repository.ts); another process sees it
 * within the TTL (docs/api/conventions.md). Unknown prefixes are not kept.
 */
export const API_KEYS_BY_PREFIX = cacheSpec<ApiKeyRow | null>("rpc.apiKeysByPrefix", {
  max: 10_000,
  ttlMs: 2_000,
});

/**
 * When this process last wrote a key's `lastUsedAt` (epoch ms), by key id: written at most once a
 * minute per key (and per process), outside the request's path.
 */
export const API_KEY_LAST_USED_WRITTEN = cacheSpec<number>("rpc.apiKeyLastUsedWritten", { max: 10_000 });
const LAST_USED_EVERY_MS = 60_000;

/**
 * The API key behind a presented key, before any tenant is known: looked up by its public prefix (the
 * secret is compared by the caller), so these methods take no tenant scope.
 */
export const apiKeyLookupRepository = {
  /** The key with this prefix (cached, see API_KEYS_BY_PREFIX); null when there is none. */
  findByPrefix(db: UnitOfWork, caches: Caches, prefix: string): Promise<ApiKeyRow | null> {
    return caches
      .of(API_KEYS_BY_PREFIX)
      .get(prefix, () => db.prisma.apiKey.findUnique({ where: { prefix } }));
  },
  /**
   * Records that the key was used now, at most once a minute per key: the console shows when a key was
   * last used without every API call paying a write. Not awaited; a failed write is dropped.
   */
  noteUsed(db: UnitOfWork, caches: Caches, row: ApiKeyRow): void {
    const now = Date.now();
    const writes = caches.of(API_KEY_LAST_USED_WRITTEN);
    const written = writes.peek(row.id) ?? row.lastUsedAt?.getTime() ?? 0;
    if (now - written < LAST_USED_EVERY_MS) return;
    writes.set(row.id, now);
    void db.prisma.apiKey
      .update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } })
      .catch(() => {});
  },
};
