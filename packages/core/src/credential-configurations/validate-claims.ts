import type { ClaimType, TClaimDefinition } from "@cred/contracts/credential-configurations";
import { compileClaimPattern } from "../shared/claim-pattern";
import { DomainError, type ErrorDetail } from "../shared/errors";

/**
 * Top-level claim names the platform sets itself in every SD-JWT VC (or that SD-JWT reserves), so a
 * configuration may not declare them. `sub` stays allowed (a caller-given subject identifier), as a string.
 */
export const RESERVED_TOP_LEVEL_CLAIMS = new Set([
  "iss",
  "nbf",
  "exp",
  "iat",
  "cnf",
  "vct",
  "vct#integrity",
  "status",
  "_sd_alg",
]);
/** Names SD-JWT uses for its own structure, refused at any depth. */
const RESERVED_SEGMENTS = new Set(["_sd", "..."]);

const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isFullDate(value: string): boolean {
  if (!FULL_DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Whether a claim value is of the declared type; the one rule for enum values here and issued claims. */
export function claimValueHasType(type: ClaimType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "date":
      return typeof value === "string" && isFullDate(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
  }
}

const pathKey = (path: string[]) => JSON.stringify(path);

/**
 * Checks a claims schema beyond its shape: unique paths, nesting only under object claims, no
 * reserved names, and constraints that fit the claim's type. Returns one detail per problem.
 */
export function validateClaims(claims: TClaimDefinition[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const byPath = new Map<string, TClaimDefinition>();

  claims.forEach((claim, i) => {
    const target = `claims.${i}`;
    const key = pathKey(claim.path);
    if (byPath.has(key)) {
      problems.push({
        code: "DuplicateClaimPath",
        target: `${target}.path`,
        message: `The path ${claim.path.join(".")} is declared more than once.`,
      });
    } else {
      byPath.set(key, claim);
    }
  });

  claims.forEach((claim, i) => {
    const target = `claims.${i}`;
    const [top] = claim.path;
    if (top !== undefined && RESERVED_TOP_LEVEL_CLAIMS.has(top)) {
      problems.push({
        code: "ReservedClaimName",
        target: `${target}.path`,
        message: `'${top}' is set by the platform in every credential and cannot be declared.`,
      });
    }
    const reserved = claim.path.find((segment) => RESERVED_SEGMENTS.has(segment));
    if (reserved !== undefined) {
      problems.push({
        code: "ReservedClaimName",
        target: `${target}.path`,
        message: `'${reserved}' is reserved by SD-JWT and cannot be a claim name.`,
      });
    }
    if (claim.path.length === 1 && top === "sub" && claim.type !== "string") {
      problems.push({
        code: "InvalidClaimType",
        target: `${target}.type`,
        message: "The 'sub' claim must be a string.",
      });
    }
    for (let depth = 1; depth < claim.path.length; depth++) {
      const parent = byPath.get(pathKey(claim.path.slice(0, depth)));
      if (parent && parent.type !== "object") {
        problems.push({
          code: "ClaimPathConflict",
          target: `${target}.path`,
          message: `${claim.path.join(".")} is nested under ${claim.path.slice(0, depth).join(".")}, which is of type ${parent.type}, not object.`,
        });
        break;
      }
    }

    const locales = (claim.display ?? []).map((d) => d.locale.toLowerCase());
    if (new Set(locales).size !== locales.length) {
      problems.push({
        code: "DuplicateLocale",
        target: `${target}.display`,
        message: "Each locale may appear only once.",
      });
    }

    problems.push(...validateConstraints(claim, `${target}.constraints`));
  });
  return problems;
}

function validateConstraints(claim: TClaimDefinition, target: string): ErrorDetail[] {
  const c = claim.constraints;
  if (!c) return [];
  const problems: ErrorDetail[] = [];
  const textual = claim.type === "string" || claim.type === "date";
  const numeric = claim.type === "number" || claim.type === "integer";
  const misfit = (name: string, allowed: string) =>
    problems.push({
      code: "ConstraintNotApplicable",
      target: `${target}.${name}`,
      message: `'${name}' applies to ${allowed} claims only, not ${claim.type}.`,
    });

  if (c.pattern !== undefined) {
    if (!textual) misfit("pattern", "string and date");
    else {
      if (!compileClaimPattern(c.pattern)) {
        problems.push({
          code: "InvalidPattern",
          target: `${target}.pattern`,
          message:
            "The pattern must be a valid regular expression that runs in linear time: no backreferences, lookahead or lookbehind, and no \\p{…} or \\u{…} escapes.",
        });
      }
    }
  }
  if (c.maxLength !== undefined && !textual) misfit("maxLength", "string and date");
  if (c.minimum !== undefined && !numeric) misfit("minimum", "number and integer");
  if (c.maximum !== undefined && !numeric) misfit("maximum", "number and integer");
  if (numeric && c.minimum !== undefined && c.maximum !== undefined && c.minimum > c.maximum) {
    problems.push({
      code: "InvalidRange",
      target: `${target}.minimum`,
      message: `minimum (${c.minimum}) is greater than maximum (${c.maximum}).`,
    });
  }
  if (c.enum !== undefined) {
    if (claim.type === "object" || claim.type === "array") {
      misfit("enum", "string, date, number, integer and boolean");
    } else {
      c.enum.forEach((value, j) => {
        if (!claimValueHasType(claim.type, value)) {
          problems.push({
            code: "InvalidEnumValue",
            target: `${target}.enum.${j}`,
            message: `${JSON.stringify(value)} is not a valid ${claim.type} value.`,
          });
        }
      });
      if (new Set(c.enum.map((v) => JSON.stringify(v))).size !== c.enum.length) {
        problems.push({
          code: "DuplicateEnumValue",
          target: `${target}.enum`,
          message: "Enum values must be unique.",
        });
      }
    }
  }
  return problems;
}

/** `validateClaims`, refusing a schema with problems: 400 `ValidationFailed` with one detail each. */
export function assertValidClaims(claims: TClaimDefinition[]): void {
  const problems = validateClaims(claims);
  if (problems.length > 0) {
    throw new DomainError("ValidationFailed", "The claims schema is not valid; see details.", problems);
  }
}
