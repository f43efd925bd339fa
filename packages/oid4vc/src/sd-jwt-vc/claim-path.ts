/**
 * A claim path (OpenID4VP §7 "claims path pointer"): object keys are strings, array positions are
 * non-negative integers, and `null` selects every element of an array.
 */
export type ClaimPath = ReadonlyArray<string | number | null>;

/** True when the concrete path `path` is selected by `pattern` (same length, `null` matches any index). */
export function claimPathMatches(pattern: ClaimPath, path: ClaimPath): boolean {
  if (pattern.length !== path.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    const c = path[i];
    if (p === null ? typeof c !== "number" : p !== c) return false;
  }
  return true;
}

/** True when `prefix` selects an ancestor of (or the same node as) the concrete path `path`. */
export function claimPathIsPrefix(prefix: ClaimPath, path: ClaimPath): boolean {
  return prefix.length <= path.length && claimPathMatches(prefix, path.slice(0, prefix.length));
}

export function formatClaimPath(path: ClaimPath): string {
  return JSON.stringify(path);
}
