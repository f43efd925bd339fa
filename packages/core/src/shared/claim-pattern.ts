import v8 from "node:v8";
import { type Caches, cacheSpec } from "./caches";

// V8's linear-time regular expression engine (the `l` flag). A claim pattern is a tenant's input and its
// value a caller's: with the backtracking engine, `^(a+)+$` against forty a's and a "!" holds the event
// loop for hours. The flag only makes the `l` flag available; other regular expressions are unchanged.
v8.setFlagsFromString("--enable-experimental-regexp-engine");

/** Unicode-mode escapes the linear engine (non-Unicode in Node 20) would read as something else. */
const UNICODE_ONLY = /\\[pP]\{|\\u\{/;

/** Compiled claim patterns (null: the linear engine cannot take it), by pattern. */
export const CLAIM_PATTERNS = cacheSpec<RegExp | null>("shared.claimPatterns", { max: 1000 });

/** `compileClaimPattern`, compiled once per pattern in `caches` (issuance checks every claim value). */
export function claimPattern(caches: Caches, pattern: string): RegExp | null {
  const compiled = caches.of(CLAIM_PATTERNS);
  const cached = compiled.peek(pattern);
  if (cached !== undefined) return cached;
  const re = compileClaimPattern(pattern);
  compiled.set(pattern, re);
  return re;
}

/**
 * A claim `pattern` compiled for the linear-time engine, or null when it cannot be: backreferences and
 * lookaround need backtracking, and Unicode property and code point escapes have no meaning outside
 * Unicode mode. Such patterns are refused when a configuration is created.
 */
export function compileClaimPattern(pattern: string): RegExp | null {
  let re: RegExp | null = null;
  try {
    new RegExp(pattern, "u"); // well-formed by the stricter Unicode-mode grammar
    if (!UNICODE_ONLY.test(pattern)) re = new RegExp(pattern, "l");
  } catch {
    re = null;
  }
  return re;
}
