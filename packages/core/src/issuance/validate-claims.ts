import { isPlainObject } from "@cred/oid4vc";
import type { TClaimDefinition } from "../credential-configurations";
import { claimValueHasType } from "../credential-configurations";
import { compileClaimPattern } from "../shared/claim-pattern";
import { DomainError, type ErrorDetail } from "../shared/errors";

type Claims = Record<string, unknown>;

/** A path as a map key: JSON, so a member named "a.b" is not the path ["a", "b"]. */
const pathKey = (path: readonly (string | number | null)[]) => JSON.stringify(path);
/** A path as people read it, in error targets and messages. */
const shown = (path: readonly (string | number | null)[]) => path.map(String).join(".");

/** A claim pattern compiled for the linear-time engine, or null (shared/claim-pattern.ts). */
export type ClaimPatternOf = (pattern: string) => RegExp | null;

function constraintProblems(def: TClaimDefinition, value: unknown, patternOf: ClaimPatternOf): string[] {
  const c = def.constraints;
  if (!c) return [];
  const problems: string[] = [];
  if (c.enum && !c.enum.some((allowed) => allowed === value))
    problems.push(`must be one of ${JSON.stringify(c.enum)}`);
  if (typeof value === "string") {
    if (c.maxLength !== undefined && [...value].length > c.maxLength)
      problems.push(`must be at most ${c.maxLength} characters`);
    if (c.pattern !== undefined) {
      // Matched in linear time; a stored pattern the engine cannot take (written before patterns were
      // checked for it) fails closed.
      const re = patternOf(c.pattern);
      if (!re) problems.push(`cannot be checked: the configuration's pattern ${c.pattern} needs updating`);
      else if (!re.test(value)) problems.push(`must match ${c.pattern}`);
    }
  }
  if (typeof value === "number") {
    if (c.minimum !== undefined && value < c.minimum) problems.push(`must be at least ${c.minimum}`);
    if (c.maximum !== undefined && value > c.maximum) problems.push(`must be at most ${c.maximum}`);
  }
  return problems;
}

/**
 * Where a claim stands in the supplied claims: present, or absent from the object at `absentAt` (the
 * index of the first path segment that is not there; the claim's own index when only it is missing).
 */
function presence(
  claims: Claims,
  path: readonly string[],
): { present: true } | { present: false; absentAt: number } {
  let node: unknown = claims;
  for (const [i, segment] of path.entries()) {
    if (!isPlainObject(node)) return { present: false, absentAt: i - 1 };
    const next = node[segment];
    if (next === undefined) return { present: false, absentAt: i };
    node = next;
  }
  return { present: true };
}

/**
 * Checks issuance claims against the configuration's declared claims: every supplied claim must be
 * declared (else `UnknownClaim` naming its path), of its type, within its constraints; required claims
 * must be present. Objects without declared children accept any members. A nested claim's parents need
 * not be declared: an undeclared parent is an object holding only its declared children, required when
 * one of them is (a declared optional parent that is absent does not demand its children).
 */
/** `patternOf`: the server's cached compiler (`claimPattern` with `deps.caches`) where it has one. */
export function validateClaims(
  definitions: TClaimDefinition[],
  claims: Claims,
  patternOf: ClaimPatternOf = compileClaimPattern,
): void {
  const byPath = new Map(definitions.map((d) => [pathKey(d.path), d]));
  const parents = new Set(
    definitions.flatMap((d) => d.path.slice(0, -1).map((_, i) => pathKey(d.path.slice(0, i + 1)))),
  );
  const unknown: ErrorDetail[] = [];
  const invalid: ErrorDetail[] = [];

  const walk = (value: Claims, prefix: string[]) => {
    for (const [name, child] of Object.entries(value)) {
      const path = [...prefix, name];
      const key = pathKey(path);
      const def = byPath.get(key);
      if (!def) {
        if (parents.has(key)) {
          // An undeclared parent of declared claims.
          if (isPlainObject(child)) walk(child, path);
          else
            invalid.push({
              code: "InvalidType",
              target: `claims.${shown(path)}`,
              message: "must be of type object",
            });
          continue;
        }
        unknown.push({
          code: "UnknownClaim",
          target: `claims.${shown(path)}`,
          message: `The claim '${shown(path)}' is not declared by the credential configuration.`,
        });
        continue;
      }
      const target = `claims.${shown(path)}`;
      if (child === null || child === undefined) {
        invalid.push({ code: "InvalidValue", target, message: "must not be null" });
        continue;
      }
      if (!claimValueHasType(def.type, child)) {
        invalid.push({ code: "InvalidType", target, message: `must be of type ${def.type}` });
        continue;
      }
      for (const problem of constraintProblems(def, child, patternOf)) {
        invalid.push({ code: "ConstraintViolated", target, message: problem });
      }
      if (def.type === "object" && parents.has(key)) walk(child as Claims, path);
    }
  };
  walk(claims, []);

  for (const def of definitions) {
    if (!def.required) continue;
    const where = presence(claims, def.path);
    if (where.present) continue;
    // Missing itself, or below an absent parent that is undeclared (so required along with it); an
    // absent declared parent answers for itself.
    const absentParent = def.path.slice(0, where.absentAt + 1);
    if (where.absentAt === def.path.length - 1 || !byPath.has(pathKey(absentParent))) {
      invalid.push({
        code: "MissingClaim",
        target: `claims.${shown(def.path)}`,
        message: `The required claim '${shown(def.path)}' is missing.`,
      });
    }
  }

  if (unknown.length > 0) {
    throw new DomainError(
      "UnknownClaim",
      `Unrecognised claim: ${unknown.map((d) => d.target.slice(7)).join(", ")}.`,
      [...unknown, ...invalid],
    );
  }
  if (invalid.length > 0)
    throw new DomainError("ValidationFailed", "The claims are not valid; see details.", invalid);
}

/** Paths of supplied claims that the configuration marks selectively disclosable. */
export function disclosablePaths(definitions: TClaimDefinition[], claims: Claims): string[][] {
  const out: string[][] = [];
  for (const def of definitions) {
    if (!def.selectivelyDisclosable) continue;
    if (presence(claims, def.path).present) out.push([...def.path]);
  }
  return out;
}
