import { type StatusListBits, signStatusListToken } from "@cred/oid4vc";
import type { AppDeps } from "../context";
import { issuanceCatalog } from "../issuance/issuance-catalog";
import { issuerUrls } from "../issuance/issuance-urls";
import { issuerSigningKey } from "../issuance/issuer-signing-keys";

interface CachedToken {
  version: number;
  token: string;
  refreshAfter: number;
}

/** Signed tokens per list and version: a revocation bumps the version, so it shows on the next fetch. */
const cache = new Map<string, CachedToken>();

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
  const sql = deps.database.fast;
  const { rows: heads } = await sql.query<{ issuerId: string; version: number }>(
    `SELECT "issuerId", "version" FROM "StatusList" WHERE "id" = $1`,
    [listId],
  );
  const head = heads[0];
  if (!head || head.issuerId !== issuerId) return null;
  const cached = cache.get(listId);
  if (cached && cached.version === head.version && cached.refreshAfter > Date.now())
    return { token: cached.token, ttl };

  const { rows: lists } = await sql.query<{ version: number; bits: number; data: Uint8Array }>(
    `SELECT "version", "bits", "data" FROM "StatusList" WHERE "id" = $1`,
    [listId],
  );
  const list = lists[0];
  const issuer = await issuanceCatalog.issuer(deps.database.prisma, issuerId);
  if (!list || !issuer) return null;
  const key = await issuerSigningKey(deps.secretBox, issuer);
  const iat = Math.floor(Date.now() / 1000);
  const token = await signStatusListToken({
    privateKey: key.privateKey,
    kid: key.kid,
    sub: issuerUrls(deps.config, issuerId).statusList(listId),
    iat,
    exp: iat + 2 * ttl,
    ttl,
    bits: list.bits as StatusListBits,
    bytes: new Uint8Array(list.data),
  });
  cache.set(listId, { version: list.version, token, refreshAfter: Date.now() + (ttl * 1000) / 2 });
  return { token, ttl };
}
