import { type ClaimPath, valueAt } from "./sd-jwt";

/** The parts of a DCQL query (OpenID4VP §6) the sandbox wallet reads. */
export interface DcqlClaimQuery {
  id?: string;
  path: ClaimPath;
  values?: unknown[];
}
export interface DcqlCredentialQuery {
  id: string;
  format: string;
  multiple?: boolean;
  meta?: { vct_values?: string[] };
  claims?: DcqlClaimQuery[];
  claim_sets?: string[][];
}
export interface DcqlQuery {
  credentials: DcqlCredentialQuery[];
  credential_sets?: { options: string[][]; required?: boolean }[];
}

/** A stored credential as the matcher sees it: its decoded claims (disclosures applied). */
export interface Candidate {
  id: string;
  claims: Record<string, unknown>;
}

export interface QueryMatch {
  query: DcqlCredentialQuery;
  /** Credentials that satisfy the query, each with the claim paths it would disclose. */
  candidates: { credentialId: string; paths: ClaimPath[] }[];
}

function claimMatches(claims: Record<string, unknown>, claim: DcqlClaimQuery): boolean {
  const found = valueAt(claims, claim.path);
  if (found.length === 0) return false;
  if (!claim.values) return true;
  return found.some((value) => claim.values!.some((wanted) => wanted === value));
}

/**
 * The claim paths a credential would disclose for a query: every requested claim, or the first claim
 * set it satisfies (§6.4.1: options in order of the verifier's preference); null when it cannot.
 */
function pathsFor(query: DcqlCredentialQuery, claims: Record<string, unknown>): ClaimPath[] | null {
  const requested = query.claims ?? [];
  if (!query.claim_sets) {
    return requested.every((claim) => claimMatches(claims, claim)) ? requested.map((c) => c.path) : null;
  }
  for (const set of query.claim_sets) {
    const chosen = set.map((id) => requested.find((claim) => claim.id === id));
    if (chosen.every((claim) => claim !== undefined && claimMatches(claims, claim))) {
      return chosen.map((claim) => claim!.path);
    }
  }
  return null;
}

/** Matches one credential query against the stored SD-JWT VCs (format `dc+sd-jwt`, `vct_values`). */
export function matchQuery(query: DcqlCredentialQuery, credentials: Candidate[]): QueryMatch {
  const candidates: QueryMatch["candidates"] = [];
  if (query.format === "dc+sd-jwt") {
    for (const credential of credentials) {
      const vct = credential.claims.vct;
      const vctValues = query.meta?.vct_values;
      if (vctValues && !(typeof vct === "string" && vctValues.includes(vct))) continue;
      const paths = pathsFor(query, credential.claims);
      if (paths) candidates.push({ credentialId: credential.id, paths });
    }
  }
  return { query, candidates };
}

/**
 * Which credential queries to answer: all of them without `credential_sets`; otherwise, per set, the
 * first option whose queries all have a matching credential (a required set that none satisfies makes
 * the request unanswerable: `missing` names it).
 */
export function matchDcql(
  dcql: DcqlQuery,
  credentials: Candidate[],
): { matches: QueryMatch[]; missing: string[] } {
  const byId = new Map(dcql.credentials.map((q) => [q.id, matchQuery(q, credentials)]));
  if (!dcql.credential_sets) {
    const matches = [...byId.values()];
    return { matches, missing: matches.filter((m) => m.candidates.length === 0).map((m) => m.query.id) };
  }
  const chosen = new Set<string>();
  const missing: string[] = [];
  for (const set of dcql.credential_sets) {
    const option = set.options.find((ids) => ids.every((id) => (byId.get(id)?.candidates.length ?? 0) > 0));
    if (option) for (const id of option) chosen.add(id);
    else if (set.required !== false) missing.push(set.options.map((ids) => ids.join("+")).join(" or "));
  }
  return { matches: dcql.credentials.filter((q) => chosen.has(q.id)).map((q) => byId.get(q.id)!), missing };
}

/** A claim path as people read it: `address.street`, `nationalities[0]`, `degrees[*]`. */
export function pathLabel(path: ClaimPath): string {
  return path
    .map((segment, i) =>
      segment === null
        ? "[*]"
        : typeof segment === "number"
          ? `[${segment}]`
          : i === 0
            ? segment
            : `.${segment}`,
    )
    .join("");
}
