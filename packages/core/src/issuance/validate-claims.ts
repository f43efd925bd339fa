import type { TClaimDefinition } from "../credential-configurations/credential-configuration.schema";
import { claimValueHasType } from "../credential-configurations/validate-claims";
import { claimPattern } from "../shared/claim-pattern";
import { DomainError, type ErrorDetail } from "../shared/errors";

type Claims = Record<string, unknown>;

const pathKey = (path: readonly (string | number | null)[]) => path.map(String).join(".");

function constraintProblems(def: TClaimDefinition, value: unknown): string[] {
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
      const re = claimPattern(c.pattern);
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
 * "missing" only when the claim's parent object is there but the claim is not; an absent optional
 * parent does not demand its children (an absent required parent is reported on its own).
 */
function presence(claims: Claims, path: readonly string[]): "present" | "missing" | "parent-absent" {
  let node: unknown = claims;
  for (const [i, segment] of path.entries()) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return "parent-absent";
    const next = (node as Claims)[segment];
    if (next === undefined) return i === path.length - 1 ? "missing" : "parent-absent";
    node = next;
  }
  return "present";
}

/**
 * Checks issuance claims against the configuration's declared claims: every supplied claim must be
 * declared (else `UnknownClaim` naming its path), of its type, within its constraints; required claims
 * must be present. Objects without declared children accept any members.
 */
export function validateClaims(definitions: TClaimDefinition[], claims: Claims): void {
  const byPath = new Map(definitions.map((d) => [pathKey(d.path), d]));
  const declaredParents = new Set(
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
        unknown.push({
          code: "UnknownClaim",
          target: `claims.${key}`,
          message: `The claim '${key}' is not declared by the credential configuration.`,
        });
        continue;
      }
      if (child === null || child === undefined) {
        invalid.push({ code: "InvalidValue", target: `claims.${key}`, message: "must not be null" });
        continue;
      }
      if (!claimValueHasType(def.type, child)) {
        invalid.push({
          code: "InvalidType",
          target: `claims.${key}`,
          message: `must be of type ${def.type}`,
        });
        continue;
      }
      for (const problem of constraintProblems(def, child)) {
        invalid.push({ code: "ConstraintViolated", target: `claims.${key}`, message: problem });
      }
      if (def.type === "object" && declaredParents.has(key)) walk(child as Claims, path);
    }
  };
  walk(claims, []);

  for (const def of definitions) {
    if (def.required && presence(claims, def.path) === "missing") {
      const key = pathKey(def.path);
      invalid.push({
        code: "MissingClaim",
        target: `claims.${key}`,
        message: `The required claim '${key}' is missing.`,
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
    if (presence(claims, def.path) === "present") out.push([...def.path]);
  }
  return out;
}
