import type { ClaimsPath } from "./claims-path";
import { hasClaim, selectClaims } from "./claims-path";
import {
  DCQL_ID_PATTERN,
  type DcqlClaimsQuery,
  type DcqlCredentialQuery,
  type DcqlQuery,
  zDcqlQuery,
} from "./z-dcql";

export const SD_JWT_VC_FORMAT = "dc+sd-jwt";

/** One credential rule of a verification policy (DESIGN §4), as far as the DCQL query is concerned. */
export interface PolicyCredentialRule {
  id: string;
  credentialTypes: readonly string[];
  requiredClaims: readonly (readonly string[])[];
  optionalClaims: readonly (readonly string[])[];
  holderBindingRequired: boolean;
  /**
   * DCQL `trusted_authorities` (OpenID4VP §6.1.1): `aki`, base64url AuthorityKeyIdentifier values;
   * `etsiTl`, identifiers (URLs) of ETSI TS 119 612 trusted lists or lists of trusted lists.
   */
  trustedAuthorities?: { aki?: readonly string[]; etsiTl?: readonly string[] };
  /** Allow several presentations for this query (DCQL `multiple`). Default false. */
  multiple?: boolean;
  /**
   * Alternative combinations of optional claims, most preferred first: DCQL `claim_sets` of the required
   * claims plus one combination each. Without them: every claim first, then the required ones only.
   */
  claimSets?: readonly (readonly (readonly string[])[])[] | null;
  /** DCQL claim `values`: the values a requested claim (required or optional) must have. */
  claimValues?: readonly PolicyClaimValues[];
}

export type DcqlClaimValue = string | number | boolean;

export interface PolicyClaimValues {
  path: readonly string[];
  values: readonly DcqlClaimValue[];
}

export interface PolicyCredentialSet {
  options: readonly (readonly string[])[];
  required?: boolean;
}

export interface PolicyQueryInput {
  credentials: readonly PolicyCredentialRule[];
  credentialSets: readonly PolicyCredentialSet[] | null;
}

/** Thrown when a policy (or a query) cannot be turned into a valid DCQL query. */
export class InvalidDcqlQueryError extends Error {
  override readonly name = "InvalidDcqlQueryError";
  constructor(readonly issues: string[]) {
    super(`invalid DCQL query: ${issues.join("; ")}`);
  }
}

/** The always-present, never selectively disclosable `vct` claim: the fallback when every claim is optional. */
const VCT_PATH = ["vct"] as const;

function pathKey(path: ClaimsPath): string {
  return JSON.stringify(path);
}

function claimsFor(
  rule: PolicyCredentialRule,
  issues: string[],
): Pick<DcqlCredentialQuery, "claims" | "claim_sets"> {
  const required = rule.requiredClaims.map((p) => [...p]);
  const optional = rule.optionalClaims.map((p) => [...p]);
  const seen = new Set<string>();
  for (const path of [...required, ...optional]) {
    if (path.length === 0) issues.push(`credential "${rule.id}": empty claim path`);
    if (path.some((segment) => typeof segment !== "string" || segment.length === 0)) {
      issues.push(`credential "${rule.id}": claim path segments must be non-empty strings`);
    }
    const key = pathKey(path);
    if (seen.has(key)) issues.push(`credential "${rule.id}": claim ${key} requested more than once`);
    seen.add(key);
  }
  const valuesByPath = new Map<string, DcqlClaimValue[]>();
  for (const entry of rule.claimValues ?? []) {
    const key = pathKey(entry.path);
    if (!seen.has(key))
      issues.push(`credential "${rule.id}": values given for claim ${key} it does not request`);
    if (entry.values.length === 0) issues.push(`credential "${rule.id}": values for claim ${key} are empty`);
    valuesByPath.set(key, [...entry.values]);
  }
  const withValues = <T extends DcqlClaimsQuery>(claim: T): T => {
    const values = valuesByPath.get(pathKey(claim.path));
    return values ? { ...claim, values } : claim;
  };
  if (required.length === 0 && optional.length === 0) return {};
  if (optional.length === 0) {
    if (rule.claimSets) issues.push(`credential "${rule.id}": claimSets need optional claims`);
    return { claims: required.map((path) => withValues({ path })) };
  }

  // Optional claims: DCQL has no per-claim "optional" flag, so express it with claim_sets, most
  // preferred first: every claim, then the required ones only (§6.4.1).
  const claims: DcqlClaimsQuery[] = [];
  const requiredIds: string[] = [];
  const allIds: string[] = [];
  required.forEach((path, i) => {
    const id = `r${i}`;
    claims.push(withValues({ id, path }));
    requiredIds.push(id);
    allIds.push(id);
  });
  optional.forEach((path, i) => {
    const id = `o${i}`;
    claims.push(withValues({ id, path }));
    allIds.push(id);
  });
  if (rule.claimSets) {
    const idOf = new Map(claims.map((c) => [pathKey(c.path), c.id!]));
    const claimSets = rule.claimSets.map((set) => {
      const ids = set.map((path) => {
        const id = idOf.get(pathKey(path));
        if (!id || id.startsWith("r")) {
          issues.push(`credential "${rule.id}": claim set names ${pathKey(path)}, not an optional claim`);
        }
        return id ?? "";
      });
      return [...requiredIds, ...ids];
    });
    if (claimSets.length === 0) issues.push(`credential "${rule.id}": claimSets must not be empty`);
    return { claims, claim_sets: claimSets };
  }
  if (requiredIds.length === 0) {
    // A claim set must name at least one claim; `vct` is always present, so it stands for "nothing more".
    const vctKey = pathKey(VCT_PATH);
    if (!seen.has(vctKey)) claims.push({ id: "vct", path: [...VCT_PATH] });
    const vctId = claims.find((c) => pathKey(c.path) === vctKey)?.id ?? "vct";
    return { claims, claim_sets: [allIds, [vctId]] };
  }
  return { claims, claim_sets: [allIds, requiredIds] };
}

/**
 * Turns a verification policy into the DCQL query sent to the wallet (OpenID4VP §6). Throws
 * `InvalidDcqlQueryError` on invalid ids, duplicate ids or claims, empty type lists and unknown ids in
 * credential sets.
 */
export function policyToDcqlQuery(policy: PolicyQueryInput): DcqlQuery {
  const issues: string[] = [];
  if (policy.credentials.length === 0) issues.push("at least one credential is required");
  const ids = new Set<string>();
  const credentials: DcqlCredentialQuery[] = policy.credentials.map((rule) => {
    if (!DCQL_ID_PATTERN.test(rule.id)) issues.push(`credential id "${rule.id}" must match [A-Za-z0-9_-]+`);
    if (ids.has(rule.id)) issues.push(`credential id "${rule.id}" is used more than once`);
    ids.add(rule.id);
    if (rule.credentialTypes.length === 0 || rule.credentialTypes.some((t) => t.length === 0)) {
      issues.push(`credential "${rule.id}": credentialTypes must be a non-empty list of non-empty strings`);
    }
    const query: DcqlCredentialQuery = {
      id: rule.id,
      format: SD_JWT_VC_FORMAT,
      meta: { vct_values: [...rule.credentialTypes] },
      ...claimsFor(rule, issues),
      require_cryptographic_holder_binding: rule.holderBindingRequired,
    };
    if (rule.multiple) query.multiple = true;
    if (rule.trustedAuthorities) {
      const { aki, etsiTl } = rule.trustedAuthorities;
      if ((aki?.length ?? 0) + (etsiTl?.length ?? 0) === 0) {
        issues.push(`credential "${rule.id}": trustedAuthorities must name at least one authority`);
      }
      query.trusted_authorities = [
        ...(aki?.length ? [{ type: "aki", values: [...aki] }] : []),
        ...(etsiTl?.length ? [{ type: "etsi_tl", values: [...etsiTl] }] : []),
      ];
    }
    return query;
  });

  const query: DcqlQuery = { credentials };
  if (policy.credentialSets !== null) {
    if (policy.credentialSets.length === 0) issues.push("credentialSets must be null or non-empty");
    query.credential_sets = policy.credentialSets.map((set, i) => {
      if (set.options.length === 0 || set.options.some((o) => o.length === 0)) {
        issues.push(`credentialSets[${i}]: options must be non-empty lists of ids`);
      }
      for (const option of set.options) {
        for (const id of option)
          if (!ids.has(id)) issues.push(`credentialSets[${i}]: unknown credential id "${id}"`);
      }
      return {
        options: set.options.map((o) => [...o]),
        ...(set.required === false ? { required: false } : {}),
      };
    });
  }
  if (issues.length > 0) throw new InvalidDcqlQueryError(issues);
  return query;
}

/** Parses and validates a DCQL query (e.g. one stored as JSON). Throws `InvalidDcqlQueryError`. */
export function parseDcqlQuery(input: unknown): DcqlQuery {
  const result = zDcqlQuery.safeParse(input);
  if (!result.success) {
    throw new InvalidDcqlQueryError(
      result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`),
    );
  }
  return result.data;
}

export interface CredentialSetsEvaluation {
  satisfied: boolean;
  /**
   * Required constraints that no presented combination meets. Without `credential_sets` every credential
   * query is required: each missing id is reported with `setIndex: null` and `options: [[id]]`.
   */
  unsatisfied: { setIndex: number | null; options: string[][] }[];
}

/**
 * Checks the presented credential query ids against the query's credential requirements (§6.4.2): every
 * required credential set has an option whose ids were all presented; without `credential_sets`, every
 * credential query must be presented.
 */
export function evaluateCredentialSets(
  query: DcqlQuery,
  presentedIds: Iterable<string>,
): CredentialSetsEvaluation {
  const presented = presentedIds instanceof Set ? (presentedIds as Set<string>) : new Set(presentedIds);
  const unsatisfied: CredentialSetsEvaluation["unsatisfied"] = [];
  if (!query.credential_sets) {
    for (const credential of query.credentials) {
      if (!presented.has(credential.id)) unsatisfied.push({ setIndex: null, options: [[credential.id]] });
    }
  } else {
    query.credential_sets.forEach((set, setIndex) => {
      if (set.required === false) return;
      const ok = set.options.some((option) => option.every((id) => presented.has(id)));
      if (!ok) unsatisfied.push({ setIndex, options: set.options.map((o) => [...o]) });
    });
  }
  return { satisfied: unsatisfied.length === 0, unsatisfied };
}

/** Every claims path the credential query asks for (all of `claims`, whichever claim set is met). */
export function requestedClaimPaths(credentialQuery: DcqlCredentialQuery): ClaimsPath[] {
  return (credentialQuery.claims ?? []).map((c) => c.path);
}

export type ClaimRequirementCheck =
  | { ok: true; claimSet: string[] | null }
  | { ok: false; missing: ClaimsPath[] };

/**
 * Verifier-side check that disclosed claims meet the credential query (§6.4.1): with `claim_sets`, at least
 * one set is fully present; otherwise every listed claim is present. Claim `values` are checked apart, by
 * `claimValueMismatches`.
 */
export function checkClaimRequirements(
  credentialQuery: DcqlCredentialQuery,
  claims: Record<string, unknown>,
): ClaimRequirementCheck {
  const queries = credentialQuery.claims ?? [];
  if (queries.length === 0) return { ok: true, claimSet: null };
  if (!credentialQuery.claim_sets) {
    const missing = queries.filter((q) => !hasClaim(claims, q.path)).map((q) => q.path);
    return missing.length === 0 ? { ok: true, claimSet: null } : { ok: false, missing };
  }
  const byId = new Map(queries.map((q) => [q.id, q]));
  let firstMissing: ClaimsPath[] | undefined;
  for (const set of credentialQuery.claim_sets) {
    const missing: ClaimsPath[] = [];
    for (const id of set) {
      const q = byId.get(id);
      if (!q || !hasClaim(claims, q.path)) missing.push(q?.path ?? [id]);
    }
    if (missing.length === 0) return { ok: true, claimSet: [...set] };
    firstMissing ??= missing;
  }
  return { ok: false, missing: firstMissing ?? [] };
}

/**
 * The requested claims with `values` (§6.3) whose disclosed value is none of them: a claim is a mismatch
 * when it is disclosed and no element the path selects equals (same JSON type and value) one of `values`.
 * A claim not disclosed is left to `checkClaimRequirements`. The wallet is only asked to honour `values`
 * (§6.4.1), so a verifier that relies on them checks them here.
 */
export function claimValueMismatches(
  credentialQuery: DcqlCredentialQuery,
  claims: Record<string, unknown>,
): { path: ClaimsPath; values: DcqlClaimValue[] }[] {
  const mismatches: { path: ClaimsPath; values: DcqlClaimValue[] }[] = [];
  for (const claim of credentialQuery.claims ?? []) {
    if (!claim.values) continue;
    const selection = selectClaims(claims, claim.path);
    if (!selection.ok || selection.values.every((v) => v === undefined)) continue;
    const allowed = claim.values;
    if (!selection.values.some((v) => allowed.some((a) => a === v))) {
      mismatches.push({ path: claim.path, values: [...allowed] });
    }
  }
  return mismatches;
}
