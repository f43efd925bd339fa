import type { Disclosure } from "./disclosure";
import { defineOwn, SD_JWT_VC_NON_DISCLOSABLE_CLAIMS } from "./pack-claims";

export class DisclosureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DisclosureError";
  }
}

export interface DisclosedClaim {
  /** Path of the claim in the reconstructed payload. */
  path: (string | number)[];
  disclosure: Disclosure;
}

export interface UnpackedClaims {
  /** The payload with disclosed claims merged in, `_sd`, `_sd_alg` and undisclosed array elements removed. */
  claims: Record<string, unknown>;
  disclosed: DisclosedClaim[];
}

const MAX_DEPTH = 64;

/**
 * RFC 9901 §7.1 steps 3-5: replaces digests by the disclosed values, recursively, and rejects
 * (with `DisclosureError`) every inconsistency: non-string or non-array `_sd`, a digest referenced
 * twice, a disclosure of the wrong shape for its position, a reserved or already present claim name,
 * a registered SD-JWT VC claim disclosed at the top level, and any disclosure not referenced at all.
 * Disclosures are assumed to be unique (check encoded strings before calling).
 */
export function unpackClaims(
  payload: Record<string, unknown>,
  disclosures: ReadonlyArray<Disclosure>,
): UnpackedClaims {
  const byDigest = new Map<string, Disclosure>();
  for (const d of disclosures) {
    if (byDigest.has(d.digest)) throw new DisclosureError("the same disclosure is included more than once");
    byDigest.set(d.digest, d);
  }
  const seenDigests = new Set<string>();
  const disclosed: DisclosedClaim[] = [];

  const claimDigest = (digest: unknown): Disclosure | undefined => {
    if (typeof digest !== "string") throw new DisclosureError("digests must be strings");
    if (seenDigests.has(digest)) throw new DisclosureError("a digest is referenced more than once");
    seenDigests.add(digest);
    return byDigest.get(digest);
  };

  const visit = (value: unknown, path: (string | number)[], depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new DisclosureError("payload is nested too deeply");
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const element of value) {
        if (isArrayDigest(element)) {
          const d = claimDigest(element["..."]);
          if (!d) continue; // decoy, or a claim the holder did not disclose
          if (d.name !== undefined)
            throw new DisclosureError("an array element digest refers to a property disclosure");
          const childPath = [...path, out.length];
          out.push(visit(d.value, childPath, depth + 1));
          disclosed.push({ path: childPath, disclosure: d });
        } else {
          out.push(visit(element, [...path, out.length], depth + 1));
        }
      }
      return out;
    }
    if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(record)) {
        if (name === "_sd" || (name === "_sd_alg" && path.length === 0)) continue;
        defineOwn(out, name, visit(child, [...path, name], depth + 1));
      }
      const sd = record._sd;
      if (sd !== undefined) {
        if (!Array.isArray(sd)) throw new DisclosureError("_sd must be an array");
        for (const digest of sd) {
          const d = claimDigest(digest);
          if (!d) continue;
          if (d.name === undefined)
            throw new DisclosureError("an _sd digest refers to an array element disclosure");
          if (d.name === "_sd" || d.name === "...")
            throw new DisclosureError(`disclosed claim name ${d.name} is reserved`);
          if (Object.hasOwn(out, d.name))
            throw new DisclosureError(`disclosed claim ${d.name} already exists`);
          if (path.length === 0 && (SD_JWT_VC_NON_DISCLOSABLE_CLAIMS.has(d.name) || d.name === "_sd_alg")) {
            throw new DisclosureError(`claim ${d.name} must not be selectively disclosable`);
          }
          const childPath = [...path, d.name];
          defineOwn(out, d.name, visit(d.value, childPath, depth + 1));
          disclosed.push({ path: childPath, disclosure: d });
        }
      }
      return out;
    }
    return value;
  };

  const claims = visit(payload, [], 0) as Record<string, unknown>;
  if (disclosed.length !== byDigest.size) {
    throw new DisclosureError("a disclosure is not referenced by any digest in the SD-JWT");
  }
  return { claims, disclosed };
}

function isArrayDigest(value: unknown): value is { "...": unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "...";
}
