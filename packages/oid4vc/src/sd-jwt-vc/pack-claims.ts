import { type ClaimPath, claimPathMatches, formatClaimPath } from "./claim-path";
import { createDecoyDigest, createDisclosure, type Disclosure, generateSalt } from "./disclosure";

/** Claims that SD-JWT VC (§3.2.2) forbids to be selectively disclosable: verifiers reject a token that discloses them. */
export const SD_JWT_VC_NON_DISCLOSABLE_CLAIMS: ReadonlySet<string> = new Set([
  "iss",
  "nbf",
  "exp",
  "cnf",
  "vct",
  "vct#integrity",
  "aka_vcts",
  "status",
]);

/** What this issuer never makes disclosable: the SD-JWT VC list plus `iat` (which the spec allows, but we keep plain). */
export const NEVER_DISCLOSABLE_CLAIMS: ReadonlySet<string> = new Set([
  ...SD_JWT_VC_NON_DISCLOSABLE_CLAIMS,
  "iat",
]);

const RESERVED_NAMES = new Set(["_sd", "...", "_sd_alg"]);

export interface PackedClaims {
  /** The claims with selectively disclosable values replaced by digests. */
  claims: Record<string, unknown>;
  disclosures: Disclosure[];
}

export interface PackClaimsOptions {
  /** Number of decoy digests to add to the top-level `_sd` array. */
  decoys?: number;
  /** Salt source; tests inject a deterministic one. */
  salt?: () => string;
}

/**
 * Replaces the claims at `disclosable` paths with digests (RFC 9901 §4.2). Nested paths are supported
 * (`["address", "street_address"]`); listing a parent as well (`["address"]`) produces a recursive
 * disclosure. Array elements are selected by index or by `null` (every element). Every path must exist,
 * so that a configuration error cannot silently leak a claim in plain text.
 */
export function packClaims(
  claims: Record<string, unknown>,
  disclosable: ReadonlyArray<ClaimPath>,
  options: PackClaimsOptions = {},
): PackedClaims {
  for (const path of disclosable) {
    if (path.length === 0) throw new TypeError("a disclosable path must not be empty");
    const head = path[0];
    if (typeof head === "string" && NEVER_DISCLOSABLE_CLAIMS.has(head) && path.length === 1) {
      throw new TypeError(`claim ${head} must never be selectively disclosable`);
    }
  }
  const salt = options.salt ?? generateSalt;
  const disclosures: Disclosure[] = [];
  const matched = new Set<ClaimPath>();

  const isDisclosable = (path: ClaimPath): boolean => {
    let hit = false;
    for (const pattern of disclosable) {
      if (claimPathMatches(pattern, path)) {
        matched.add(pattern);
        hit = true;
      }
    }
    return hit;
  };
  const hasDisclosableBelow = (path: ClaimPath): boolean =>
    disclosable.some((p) => p.length > path.length && claimPathMatches(p.slice(0, path.length), path));

  const pack = (value: unknown, path: (string | number)[]): unknown => {
    if (!hasDisclosableBelow(path)) return value;
    if (Array.isArray(value)) {
      return value.map((element, index) => {
        const childPath = [...path, index];
        const packed = pack(element, childPath);
        if (!isDisclosable(childPath)) return packed;
        const disclosure = createDisclosure(salt(), undefined, packed);
        disclosures.push(disclosure);
        return { "...": disclosure.digest };
      });
    }
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {};
      const digests: string[] = [];
      for (const [name, child] of Object.entries(value)) {
        const childPath = [...path, name];
        const packed = pack(child, childPath);
        if (isDisclosable(childPath)) {
          const disclosure = createDisclosure(salt(), name, packed);
          disclosures.push(disclosure);
          digests.push(disclosure.digest);
        } else {
          defineOwn(out, name, packed);
        }
      }
      if (path.length === 0)
        for (let i = 0; i < (options.decoys ?? 0); i++) digests.push(createDecoyDigest());
      if (digests.length > 0) out._sd = digests.sort();
      return out;
    }
    return value;
  };

  assertNoReservedNames(claims, 0);
  let packed = pack(claims, []) as Record<string, unknown>;
  if ((options.decoys ?? 0) > 0 && disclosable.length === 0) {
    packed = { ...claims, _sd: Array.from({ length: options.decoys ?? 0 }, createDecoyDigest).sort() };
  }
  for (const pattern of disclosable) {
    if (!matched.has(pattern))
      throw new TypeError(`disclosable path ${formatClaimPath(pattern)} matches no claim`);
  }
  return { claims: packed, disclosures };
}

const MAX_DEPTH = 32;

function assertNoReservedNames(value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw new TypeError("claims are nested too deeply");
  if (Array.isArray(value)) {
    for (const element of value) assertNoReservedNames(element, depth + 1);
  } else if (typeof value === "object" && value !== null) {
    for (const [name, child] of Object.entries(value)) {
      if (RESERVED_NAMES.has(name)) throw new TypeError(`claim name ${name} is reserved by SD-JWT`);
      assertNoReservedNames(child, depth + 1);
    }
  }
}

/** Assigns an own, enumerable property even for names such as `__proto__`. */
export function defineOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
