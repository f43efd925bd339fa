import { z } from "zod";

/** The rules one claim of a type sets for its credentials (SD-JWT VC §7.8 "Claim Metadata"). */
export interface TypeMetadataClaimRule {
  /** Claim path (§7.8.1): strings select object members, integers array elements, null every element. */
  path: (string | number | null)[];
  /** The issuer always includes the claim (§7.8.2 `mandatory`, default false). */
  mandatory: boolean;
  /** Whether the claim is selectively disclosable (§7.8.2 `sd`, default `allowed`). */
  sd: "always" | "never" | "allowed";
}

const ZClaimRule = z.looseObject({
  path: z.array(z.union([z.string(), z.number().int().nonnegative(), z.null()])).min(1),
  mandatory: z.boolean().optional(),
  sd: z.enum(["always", "never", "allowed"]).optional(),
});

/**
 * The claim rules of a Type Metadata document (its `claims`), null when the document or one of its
 * claim entries is malformed: rules that cannot be read are no rules to apply, and a broken entry makes
 * the whole document suspect.
 */
export function parseTypeMetadataClaimRules(document: unknown): TypeMetadataClaimRule[] | null {
  if (typeof document !== "object" || document === null || Array.isArray(document)) return null;
  const claims = (document as Record<string, unknown>).claims;
  if (claims === undefined) return [];
  const parsed = z.array(ZClaimRule).safeParse(claims);
  if (!parsed.success) return null;
  return parsed.data.map((claim) => ({
    path: claim.path,
    mandatory: claim.mandatory ?? false,
    sd: claim.sd ?? "allowed",
  }));
}

/** The concrete paths (in an unpacked payload) a claim path selects (OpenID4VP §7.1 processing). */
function selectPaths(payload: unknown, path: (string | number | null)[]): (string | number)[][] {
  let selected: { value: unknown; at: (string | number)[] }[] = [{ value: payload, at: [] }];
  for (const component of path) {
    const next: typeof selected = [];
    for (const { value, at } of selected) {
      if (component === null) {
        if (Array.isArray(value)) {
          for (const [index, element] of value.entries()) next.push({ value: element, at: [...at, index] });
        }
      } else if (typeof component === "number") {
        if (Array.isArray(value) && component < value.length)
          next.push({ value: value[component], at: [...at, component] });
      } else if (
        typeof value === "object" &&
        value !== null &&
        !Array.isArray(value) &&
        Object.hasOwn(value, component)
      ) {
        next.push({ value: (value as Record<string, unknown>)[component], at: [...at, component] });
      }
    }
    selected = next;
  }
  return selected.map((s) => s.at);
}

const samePath = (a: (string | number)[], b: (string | number)[]) =>
  a.length === b.length && a.every((component, i) => component === b[i]);

const show = (path: (string | number | null)[]) => JSON.stringify(path);

/**
 * What a presented SD-JWT VC breaks of its type's claim rules (SD-JWT VC §7.8.2), one message per
 * broken rule, empty when it keeps them all. `payload` is the unpacked payload the holder disclosed and
 * `disclosedPaths` the paths that came from disclosures. `sd: always`: every selected claim that is
 * present must have come from a disclosure; `sd: never`: none may have; `mandatory` with `sd: never`:
 * the claim must be present (the holder cannot withhold a claim that is not selectively disclosable; a
 * mandatory claim that is, may be withheld, so its absence says nothing).
 */
export function typeMetadataViolations(
  rules: ReadonlyArray<TypeMetadataClaimRule>,
  presented: { payload: Record<string, unknown>; disclosedPaths: ReadonlyArray<(string | number)[]> },
): string[] {
  const violations: string[] = [];
  for (const rule of rules) {
    const present = selectPaths(presented.payload, rule.path);
    const disclosed = (at: (string | number)[]) => presented.disclosedPaths.some((d) => samePath(d, at));
    if (rule.sd === "always" && present.some((at) => !disclosed(at))) {
      violations.push(`claim ${show(rule.path)} must be selectively disclosable but is not`);
    }
    if (rule.sd === "never" && present.some(disclosed)) {
      violations.push(`claim ${show(rule.path)} must not be selectively disclosable but is`);
    }
    if (rule.mandatory && rule.sd === "never" && present.length === 0) {
      violations.push(`mandatory claim ${show(rule.path)} is missing`);
    }
  }
  return violations;
}
