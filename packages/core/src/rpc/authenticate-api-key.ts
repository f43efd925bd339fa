import { type Environment, isScope, type Scope } from "@cred/contracts/scopes";
import type { Db, UnitOfWork } from "@cred/db";
import type { Principal } from "../shared/principal";
import { constantTimeEqual, hashSecret } from "../shared/secret-box";
import { parseApiKey } from "./api-key-format";

type ApiKeyRow = NonNullable<Awaited<ReturnType<Db["apiKey"]["findUnique"]>>>;

/**
 * Key rows by public prefix, for at most two seconds: saves a query on every API call. A revocation in
 * this process drops the entry at once; another process sees it within the TTL (docs/api/conventions.md).
 */
const KEY_TTL_MS = 2_000;
const recentKeys = new Map<string, { row: ApiKeyRow | null; until: number }>();

export function forgetApiKey(prefix: string) {
  recentKeys.delete(prefix);
}

async function findKeyRow(db: UnitOfWork, prefix: string): Promise<ApiKeyRow | null> {
  const hit = recentKeys.get(prefix);
  if (hit && hit.until > Date.now()) return hit.row;
  const row = await db.prisma.apiKey.findUnique({ where: { prefix } });
  if (recentKeys.size > 10_000) recentKeys.clear();
  if (row) recentKeys.set(prefix, { row, until: Date.now() + KEY_TTL_MS });
  return row;
}

/**
 * `lastUsedAt` is written at most once a minute per key (and per process), outside the request's
 * path: the console shows when a key was last used without every API call paying a write.
 */
const LAST_USED_EVERY_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

function noteUse(db: UnitOfWork, row: ApiKeyRow) {
  const now = Date.now();
  const written = lastUsedWritten.get(row.id) ?? row.lastUsedAt?.getTime() ?? 0;
  if (now - written < LAST_USED_EVERY_MS) return;
  if (lastUsedWritten.size > 10_000) lastUsedWritten.clear();
  lastUsedWritten.set(row.id, now);
  void db.prisma.apiKey
    .update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } })
    .catch(() => {});
}

export type ApiKeyLookup = { ok: true; principal: Principal } | { ok: false; reason: string };

export async function findApiKeyPrincipal(db: UnitOfWork, key: string): Promise<ApiKeyLookup> {
  const parsed = parseApiKey(key);
  if (!parsed) return { ok: false, reason: "The API key is malformed." };
  const row = await findKeyRow(db, parsed.prefix);
  // Hash even on a miss so the timing of unknown and wrong keys matches.
  const presented = hashSecret(parsed.secret);
  if (!row || !constantTimeEqual(presented, row.secretHash))
    return { ok: false, reason: "The API key is not valid." };
  if (row.revokedAt) return { ok: false, reason: "The API key has been revoked." };
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now())
    return { ok: false, reason: "The API key has expired." };
  noteUse(db, row);
  return {
    ok: true,
    principal: {
      kind: "apiKey",
      id: row.id,
      tenantId: row.tenantId,
      environment: row.environment as Environment,
      scopes: new Set(row.scopes.filter(isScope) as Scope[]),
      issuerId: row.issuerId,
      name: row.name,
    },
  };
}
