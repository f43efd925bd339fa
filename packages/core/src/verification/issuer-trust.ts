import { X509Certificate } from "node:crypto";
import { certificateNamesIssuer, importEs256PublicKey, type JwsHeader } from "@cred/oid4vc";
import type { CryptoKey, JWK } from "jose";
import { credentialIssuerIdentifier, platformIssuerKeyCacheKey, platformIssuerKeysCache } from "../issuers";
import { cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { outboundGet } from "../shared/outbound-fetch";
import type { TenantScope } from "../shared/principal";
import { x5cChainKey } from "../shared/x5c-chain";
import { trustSourceAnchors } from "../trust-sources";
import type { TPolicyCredential } from "../verification-policies";
import { verificationRepository } from "./verification-repository";

/** How an issuer key was found, i.e. why the issuer is trusted. */
export type TrustSource =
  | { kind: "platform"; issuerId: string }
  | { kind: "jwks"; jwksUri: string }
  | { kind: "jwt-vc-issuer"; credentialIssuer: string }
  /** `subject`: the leaf certificate's subject, the issuer of a credential without `iss`. */
  | { kind: "x5c"; rootPem: string; subject: string };

export interface ResolvedIssuerKey {
  key: CryptoKey;
  source: TrustSource;
}

/** External keys and key sets are fetched again after this long. */
const TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 1000;
const JWKS_MAX_BYTES = 64 * 1024;

/** Pinned JWK Sets by URL, as `keysOfSet` files them. */
const jwksSets = cacheSpec<Map<string, JWK>>("verification.jwksSets", { max: MAX_ENTRIES, ttlMs: TTL_MS });
/** Keys imported from a JWK Set or issuer metadata, by where they came from and `kid`. */
const importedJwks = cacheSpec<CryptoKey | null>("verification.importedJwks", {
  max: MAX_ENTRIES,
  ttlMs: TTL_MS,
});
/** The keys of external issuers' `/.well-known/jwt-vc-issuer` metadata, by credential issuer. */
const issuerMetadataKeySets = cacheSpec<Map<string, JWK>>("verification.issuerMetadataKeys", {
  max: MAX_ENTRIES,
  ttlMs: TTL_MS,
});

// ---------------------------------------------------------------------------------------------------
// Platform issuers: by `kid`, public key imported once.

/**
 * Found or not, a platform key is looked up again after 2 s. The issuers slice declares the cache
 * (`platformIssuerKeysCache`) so that a signing key rotation can drop the keys it changed.
 */
async function platformKey(deps: AppDeps, scope: TenantScope, kid: string) {
  return deps.caches.of(platformIssuerKeysCache).get(
    platformIssuerKeyCacheKey(scope, kid),
    async () => {
      const row = await verificationRepository.findIssuerByKid(deps.database.root, scope, kid);
      return row
        ? { issuerId: row.id, key: await importEs256PublicKey(publicOnly(row.publicJwk as JWK)) }
        : null;
    },
    () => true,
  );
}

function publicOnly(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

// ---------------------------------------------------------------------------------------------------
// External issuers pinned by JWKS URL.

function jwksOf(deps: AppDeps, jwksUri: string): Promise<Map<string, JWK>> {
  return deps.caches.of(jwksSets).get(
    jwksUri,
    async () => {
      const body = await outboundGet(deps.config, jwksUri, {
        accept: "application/jwk-set+json, application/json",
        maxBytes: JWKS_MAX_BYTES,
        trace: deps.outboundTrace,
      });
      return keysOfSet(JSON.parse(body));
    },
    () => true,
  );
}

/** Where `keysOfSet` files the set's key when it has exactly one (no real `kid` is empty). */
const ONLY_KEY = "";

/** The P-256 keys of a JWK Set, by `kid`; a set of one P-256 key also has it under `ONLY_KEY`. */
function keysOfSet(set: unknown): Map<string, JWK> {
  const keys = new Map<string, JWK>();
  const list = (set as { keys?: unknown } | null)?.keys;
  if (Array.isArray(list)) {
    const p256 = (list.slice(0, 100) as JWK[]).filter((key) => key?.kty === "EC" && key.crv === "P-256");
    for (const key of p256) if (typeof key.kid === "string" && key.kid !== ONLY_KEY) keys.set(key.kid, key);
    if (p256.length === 1) keys.set(ONLY_KEY, p256[0] as JWK);
  }
  return keys;
}

/**
 * The key a JWS names by `kid`. SD-JWT VC §3.2 only RECOMMENDS a `kid`: a JWS without one takes the
 * set's only key, and a set's only key without a `kid` serves any JWS (its signature still decides).
 */
function keyFor(keys: Map<string, JWK>, kid: string | undefined): JWK | undefined {
  const only = keys.get(ONLY_KEY);
  if (kid === undefined) return only;
  return keys.get(kid) ?? (only?.kid === undefined ? only : undefined);
}

// ---------------------------------------------------------------------------------------------------
// External issuers by identifier: SD-JWT VC issuer metadata (`/.well-known/jwt-vc-issuer`, §3.5 (a)).

/** `https://h/a/b` → `https://h/.well-known/jwt-vc-issuer/a/b` (path insertion). */
export function jwtVcIssuerMetadataUrl(credentialIssuer: string): string {
  const url = new URL(credentialIssuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return `${url.origin}/.well-known/jwt-vc-issuer${path}`;
}

async function issuerMetadataKeysOf(deps: AppDeps, credentialIssuer: string): Promise<Map<string, JWK>> {
  const cache = deps.caches.of(issuerMetadataKeySets);
  const cached = cache.peek(credentialIssuer);
  if (cached) return cached;
  const body = await outboundGet(deps.config, jwtVcIssuerMetadataUrl(credentialIssuer), {
    accept: "application/json",
    maxBytes: JWKS_MAX_BYTES,
    trace: deps.outboundTrace,
  });
  const metadata = JSON.parse(body) as { issuer?: unknown; jwks?: { keys?: unknown }; jwks_uri?: unknown };
  // The metadata must be about this very issuer, and carry exactly one of jwks / jwks_uri.
  if (metadata.issuer !== credentialIssuer) return new Map();
  let keys: Map<string, JWK>;
  if (metadata.jwks !== undefined && metadata.jwks_uri === undefined) {
    keys = keysOfSet(metadata.jwks);
  } else if (typeof metadata.jwks_uri === "string" && metadata.jwks === undefined) {
    keys = await jwksOf(deps, metadata.jwks_uri);
  } else {
    keys = new Map();
  }
  cache.set(credentialIssuer, keys);
  return keys;
}

/** The key `kid` names in a key set, imported once and cached under `cacheKey` (`loadSet` caches the set). */
function importedKey(
  deps: AppDeps,
  cacheKey: string,
  loadSet: () => Promise<Map<string, JWK>>,
  kid: string | undefined,
): Promise<CryptoKey | null> {
  // A kid the set does not have is not kept: the set (cached itself) is asked again next time.
  return deps.caches.of(importedJwks).get(cacheKey, async () => {
    const jwk = keyFor(await loadSet(), kid);
    return jwk ? importEs256PublicKey(publicOnly(jwk)) : null;
  });
}

function issuerMetadataKey(deps: AppDeps, credentialIssuer: string, kid: string | undefined) {
  return importedKey(
    deps,
    `meta|${credentialIssuer}|${kid ?? ONLY_KEY}`,
    () => issuerMetadataKeysOf(deps, credentialIssuer),
    kid,
  );
}

function jwksKey(deps: AppDeps, jwksUri: string, kid: string | undefined): Promise<CryptoKey | null> {
  return importedKey(deps, `${jwksUri}|${kid ?? ONLY_KEY}`, () => jwksOf(deps, jwksUri), kid);
}

// ---------------------------------------------------------------------------------------------------

/**
 * The anchors a chain can end at: those whose subject is the issuer of one of its certificates (or that
 * are one of them), so that a list of many CAs costs one path validation, not one per CA.
 */
function anchorsNamedByChain(anchors: string[], x5c: unknown[]): string[] {
  const issuers = new Set<string>();
  for (const der of x5c) {
    if (typeof der !== "string") continue;
    try {
      const certificate = new X509Certificate(Buffer.from(der, "base64"));
      issuers.add(certificate.issuer).add(certificate.subject);
    } catch {
      // not a certificate: path validation refuses the chain anyway
    }
  }
  return anchors.filter((pem) => {
    try {
      return issuers.has(new X509Certificate(pem).subject);
    } catch {
      return false;
    }
  });
}

export interface TrustContext {
  deps: AppDeps;
  scope: TenantScope;
  credential: Pick<TPolicyCredential, "trustedIssuers">;
  now: number;
}

/**
 * The key that verifies a credential's signature, or null when its issuer is not one the policy
 * credential trusts: a platform issuer of this tenant + environment (by `kid`, and `iss` must be that
 * issuer's identifier), an external issuer's pinned JWKS (by `kid`), an external issuer named by its
 * identifier (`iss` must equal it; keys from its `/.well-known/jwt-vc-issuer` metadata, by `kid`), or an
 * `x5c` chain ending at a pinned root or at a CA a trust source lists under the service type (the leaf
 * must name `iss`). Receives the unverified header and payload.
 */
export async function resolveIssuerKey(
  ctx: TrustContext,
  header: JwsHeader,
  payload: Record<string, unknown>,
): Promise<ResolvedIssuerKey | null> {
  const trusted = ctx.credential.trustedIssuers;
  if (Array.isArray(header.x5c)) {
    for (const t of trusted) {
      if (!("x5cRoot" in t)) continue;
      const chain = await x5cChainKey(ctx.deps.caches, header.x5c as string[], t.x5cRoot, ctx.now);
      // Without `iss` the leaf's subject is the issuer (SD-JWT VC §2.2.2.3); with one, the leaf must name it.
      if (chain && (payload.iss === undefined || certificateNamesIssuer(chain.leaf, payload.iss))) {
        const subject = chain.leaf.subject.split("\n").join(", ");
        return { key: chain.key, source: { kind: "x5c", rootPem: t.x5cRoot, subject } };
      }
    }
  }
  if (Array.isArray(header.x5c)) {
    for (const t of trusted) {
      if (!("trustSourceId" in t)) continue;
      // The CAs a trusted list grants under the service type now (its last good copy, while current).
      const anchors = await trustSourceAnchors(ctx.deps, ctx.scope, t.trustSourceId, t.serviceType, ctx.now);
      for (const rootPem of anchorsNamedByChain(anchors, header.x5c)) {
        const chain = await x5cChainKey(ctx.deps.caches, header.x5c as string[], rootPem, ctx.now);
        if (chain && (payload.iss === undefined || certificateNamesIssuer(chain.leaf, payload.iss))) {
          const subject = chain.leaf.subject.split("\n").join(", ");
          return { key: chain.key, source: { kind: "x5c", rootPem, subject } };
        }
      }
    }
  }
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const platformIds = trusted.flatMap((t) => ("issuerId" in t ? [t.issuerId] : []));
  // Platform issuers always sign with a kid.
  if (platformIds.length > 0 && kid !== undefined) {
    const platform = await platformKey(ctx.deps, ctx.scope, kid);
    if (
      platform &&
      platformIds.includes(platform.issuerId) &&
      payload.iss === credentialIssuerIdentifier(ctx.deps.config, platform.issuerId)
    ) {
      return { key: platform.key, source: { kind: "platform", issuerId: platform.issuerId } };
    }
  }
  for (const t of trusted) {
    if ("jwksUri" in t) {
      const key = await jwksKey(ctx.deps, t.jwksUri, kid);
      if (key) return { key, source: { kind: "jwks", jwksUri: t.jwksUri } };
    }
    if ("credentialIssuer" in t && payload.iss === t.credentialIssuer) {
      const key = await issuerMetadataKey(ctx.deps, t.credentialIssuer, kid);
      if (key) return { key, source: { kind: "jwt-vc-issuer", credentialIssuer: t.credentialIssuer } };
    }
  }
  return null;
}

/**
 * The key of a remote Status List Token, found the way the credential's own key was (status list
 * draft §10: same key or resolution mechanism): the same pinned JWKS by `kid`, or an `x5c` chain to the
 * same root; failing both, the credential issuer's own key.
 */
export async function resolveStatusListKey(
  ctx: TrustContext,
  source: TrustSource,
  issuerKey: CryptoKey,
  header: JwsHeader,
): Promise<CryptoKey | null> {
  if (source.kind === "x5c" && Array.isArray(header.x5c)) {
    return (await x5cChainKey(ctx.deps.caches, header.x5c as string[], source.rootPem, ctx.now))?.key ?? null;
  }
  if (source.kind === "jwks" && typeof header.kid === "string") {
    return jwksKey(ctx.deps, source.jwksUri, header.kid);
  }
  if (source.kind === "jwt-vc-issuer" && typeof header.kid === "string") {
    return issuerMetadataKey(ctx.deps, source.credentialIssuer, header.kid);
  }
  // A platform issuer may sign its status lists with a separate key (docs/key-custody.md).
  if (source.kind === "platform" && typeof header.kid === "string") {
    const jwk = await verificationRepository.findStatusListKey(
      ctx.deps.database.root,
      ctx.scope,
      source.issuerId,
      header.kid,
    );
    if (jwk) return importEs256PublicKey(publicOnly(jwk as JWK));
  }
  return issuerKey;
}
