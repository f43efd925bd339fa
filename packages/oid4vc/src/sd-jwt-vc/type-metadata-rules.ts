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
  const entries = parseTypeMetadataClaimEntries(document);
  return (
    entries?.map((claim) => ({
      path: claim.path,
      mandatory: claim.mandatory ?? false,
      sd: claim.sd ?? "allowed",
    })) ?? null
  );
}

/** A claim entry as a document states it: `mandatory` / `sd` undefined where the document omits them. */
export interface TypeMetadataClaimEntry {
  path: (string | number | null)[];
  mandatory?: boolean;
  sd?: "always" | "never" | "allowed";
}

/**
 * The claim entries of a Type Metadata document as written (no defaults filled in), for merging along
 * `extends`; null when the document or an entry is malformed (as `parseTypeMetadataClaimRules`).
 */
export function parseTypeMetadataClaimEntries(document: unknown): TypeMetadataClaimEntry[] | null {
  if (typeof document !== "object" || document === null || Array.isArray(document)) return null;
  const claims = (document as Record<string, unknown>).claims;
  if (claims === undefined) return [];
  const parsed = z.array(ZClaimRule).safeParse(claims);
  if (!parsed.success) return null;
  return parsed.data.map((claim) => ({
    path: claim.path,
    ...(claim.mandatory !== undefined ? { mandatory: claim.mandatory } : {}),
    ...(claim.sd !== undefined ? { sd: claim.sd } : {}),
  }));
}

const sameRulePath = (a: (string | number | null)[], b: (string | number | null)[]) =>
  a.length === b.length && a.every((component, i) => component === b[i]);

/**
 * The claim rules of a type that `extends` another (SD-JWT VC "Extending Claim Metadata"): every rule
 * of the extended type is inherited; an entry of the extending type for the same `path` is combined
 * with it, the extending type's properties taking precedence where it states them, within the limits
 * of "Limitations for `sd` and `mandatory`": `sd` may go from `allowed` (or omitted) to `always` or
 * `never`, but an `always` or `never` must stay as it is; `mandatory` may go from false to true, never
 * from true to false. An entry that breaks a limit makes the pair invalid: `{ conflicts }` names each
 * (the credential is then rejected, as claim metadata processing failed); otherwise `{ rules }`.
 */
export function extendTypeMetadataClaimRules(
  extended: ReadonlyArray<TypeMetadataClaimRule>,
  extending: ReadonlyArray<TypeMetadataClaimEntry>,
): { rules: TypeMetadataClaimRule[] } | { conflicts: string[] } {
  const rules = extended.map((rule) => ({ ...rule, path: [...rule.path] }));
  const conflicts: string[] = [];
  for (const entry of extending) {
    const inherited = rules.find((rule) => sameRulePath(rule.path, entry.path));
    if (!inherited) {
      rules.push({ path: [...entry.path], mandatory: entry.mandatory ?? false, sd: entry.sd ?? "allowed" });
      continue;
    }
    if (entry.sd !== undefined && inherited.sd !== "allowed" && entry.sd !== inherited.sd) {
      conflicts.push(`claim ${show(entry.path)} changes sd from ${inherited.sd} to ${entry.sd}`);
    }
    if (entry.mandatory === false && inherited.mandatory) {
      conflicts.push(`claim ${show(entry.path)} changes mandatory from true to false`);
    }
    if (entry.sd !== undefined) inherited.sd = entry.sd;
    if (entry.mandatory !== undefined) inherited.mandatory = entry.mandatory;
  }
  return conflicts.length > 0 ? { conflicts } : { rules };
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
