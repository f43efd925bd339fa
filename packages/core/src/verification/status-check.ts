import {
  decodeJwtUnverified,
  getStatus,
  jwkThumbprintKid,
  STATUS_LIST_MEDIA_TYPE,
  type StatusListBits,
  StatusListTokenError,
  verifyStatusListToken,
} from "@cred/oid4vc";
import { type CryptoKey, exportJWK } from "jose";
import { statusListToken } from "../issuers";
import { cacheSpec } from "../shared/caches";
import { OutboundFetchError, outboundGet } from "../shared/outbound-fetch";
import { keepStatusListUntil, STATUS_TOKEN_MAX_BYTES } from "../shared/remote-status-list";
import { type ResolvedIssuerKey, resolveStatusListKey, type TrustContext } from "./issuer-trust";
import { verificationRepository } from "./verification-repository";

export type StatusCheck = { ok: true } | { ok: false; code: string; message: string };

interface CachedList {
  bits: StatusListBits;
  bytes: Uint8Array;
  expires: number;
}
/**
 * Verified remote lists by URI **and** by whom they were verified for: the trust source and the
 * credential's issuer key decide which key a list must be signed with, so a list accepted for one
 * issuer is never reused for another issuer's credential that names the same URI.
 */
const remoteLists = cacheSpec<CachedList>("verification.remoteStatusLists", { max: 200 });

/** The issuer key is named by its JWK thumbprint (RFC 7638), computed per check (remote lists only). */
async function remoteListKey(issuer: ResolvedIssuerKey, uri: string): Promise<string> {
  return JSON.stringify([uri, issuer.source, jwkThumbprintKid(await exportJWK(issuer.key))]);
}

/** Issuer and list of one of our own list URLs: `<publicBaseUrl>/issuers/<issuer id>/status-lists/<list id>`. */
export function ownStatusList(
  publicBaseUrl: string,
  uri: string,
): { issuerId: string; listId: string } | null {
  const base = `${publicBaseUrl.replace(/\/+$/, "")}/`;
  if (!uri.startsWith(base)) return null;
  const match = /^issuers\/(iss_[0-9a-z]{26})\/status-lists\/(sl_[0-9a-z]{26})$/.exec(uri.slice(base.length));
  return match ? { issuerId: match[1]!, listId: match[2]! } : null;
}

function judge(value: number): StatusCheck {
  if (value === 0) return { ok: true };
  if (value === 1)
    return { ok: false, code: "credential_revoked", message: "the credential has been revoked" };
  if (value === 2) return { ok: false, code: "credential_suspended", message: "the credential is suspended" };
  return { ok: false, code: "credential_status_invalid", message: `the credential's status is ${value}` };
}

const unavailable = (message: string): StatusCheck => ({ ok: false, code: "status_unavailable", message });

/**
 * The token at a list URL. One of ours is built here, as its endpoint would serve it, rather than
 * fetched through the network (where the outbound policy may rightly refuse our own address); it is then
 * verified like any other, so a credential trusted through `x5c` or a pinned JWKS is held to that.
 */
async function listTokenAt(
  ctx: TrustContext,
  uri: string,
  own: ReturnType<typeof ownStatusList>,
): Promise<string | StatusCheck> {
  if (own) {
    const built = await statusListToken(ctx.deps, own.issuerId, own.listId);
    return built ? built.token : unavailable("the credential's status list does not exist");
  }
  try {
    return (
      await outboundGet(ctx.deps.config, uri, {
        accept: STATUS_LIST_MEDIA_TYPE,
        maxBytes: STATUS_TOKEN_MAX_BYTES,
        trace: ctx.deps.outboundTrace,
      })
    ).trim();
  } catch (error) {
    if (error instanceof OutboundFetchError)
      return unavailable(`status list could not be fetched: ${error.message}`);
    throw error;
  }
}

async function remoteList(
  ctx: TrustContext,
  issuer: ResolvedIssuerKey,
  uri: string,
  own: ReturnType<typeof ownStatusList>,
): Promise<CachedList | StatusCheck> {
  // Our own lists are read afresh each time, so that a revocation counts at once: no cache key for them.
  const cacheKey = own ? null : await remoteListKey(issuer, uri);
  const cache = ctx.deps.caches.of(remoteLists);
  // Each list is kept until its own `expires` (its ttl, never past its exp), checked here.
  const cached = cacheKey === null ? undefined : cache.peek(cacheKey);
  if (cached && cached.expires > Date.now()) return cached;
  const token = await listTokenAt(ctx, uri, own);
  if (typeof token !== "string") return token;
  let key: CryptoKey | null;
  try {
    key = await resolveStatusListKey(ctx, issuer.source, issuer.key, decodeJwtUnverified(token).header);
  } catch {
    return unavailable("status list token is malformed");
  }
  if (!key) return unavailable("status list token is not signed by a trusted key");
  try {
    const list = await verifyStatusListToken(token, key, { expectedSub: uri, now: new Date(ctx.now) });
    const entry = { bits: list.bits, bytes: list.bytes, expires: keepStatusListUntil(list, Date.now()) };
    if (cacheKey !== null) cache.set(cacheKey, entry);
    return entry;
  } catch (error) {
    if (error instanceof StatusListTokenError) return unavailable(`status list token: ${error.message}`);
    throw error;
  }
}

/**
 * IETF Token Status List check. Our own lists (a platform issuer's credential pointing at one of our
 * list URLs) are read straight from the StatusList row, so a revocation counts from the moment it is
 * written; remote lists are fetched under the outbound policy, verified with the issuer's key (same
 * resolution mechanism) and cached for their `ttl` (default 300 s, at most 1 h, never past `exp`). A
 * credential trusted otherwise than as a platform issuer's (`x5c`, a pinned JWKS, issuer metadata) that
 * points at one of our lists has that list's token built here and verified the same way, uncached.
 */
export async function checkCredentialStatus(
  ctx: TrustContext,
  issuer: ResolvedIssuerKey,
  status: { idx: number; uri: string },
): Promise<StatusCheck> {
  const own = ownStatusList(ctx.deps.config.publicBaseUrl, status.uri);
  const listId = own?.listId;
  if (issuer.source.kind === "platform") {
    if (!listId) return unavailable("the credential does not point at one of its issuer's status lists");
    const entry = await verificationRepository.readOwnStatus(
      ctx.deps.database.root,
      ctx.scope,
      issuer.source.issuerId,
      listId,
      status.idx,
    );
    if (!entry) return unavailable("the credential's status list does not exist");
    if (entry.value === null) return unavailable("the status index is out of range");
    return judge(entry.value);
  }
  const list = await remoteList(ctx, issuer, status.uri, own);
  if (!("bytes" in list)) return list;
  if (status.idx >= (list.bytes.length * 8) / list.bits)
    return unavailable("the status index is out of range");
  return judge(getStatus(list.bytes, list.bits, status.idx));
}
