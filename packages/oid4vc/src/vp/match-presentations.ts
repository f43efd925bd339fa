import { evaluateCredentialSets } from "./dcql";
import type { VpReason } from "./reasons";
import type { VpToken } from "./z-authorization-response";
import type { DcqlQuery } from "./z-dcql";

/** Reasons why the *set* of presented ids cannot satisfy the query (§6.4.2), empty when satisfied. */
export function credentialSetReasons(query: DcqlQuery, presentedIds: Iterable<string>): VpReason[] {
  const evaluation = evaluateCredentialSets(query, presentedIds);
  return evaluation.unsatisfied.map((u) =>
    u.setIndex === null
      ? {
          code: "missing_credential",
          message: `no presentation for credential query "${u.options[0]?.[0]}"`,
          credentialQueryId: u.options[0]?.[0],
        }
      : {
          code: "credential_sets_unsatisfied",
          message: `credential_sets[${u.setIndex}] needs one of ${u.options.map((o) => `[${o.join(", ")}]`).join(" or ")}`,
        },
  );
}

/**
 * Structural match of a VP Token to the DCQL query (§8.1, §8.6 step 1): no keys other than credential
 * query ids, exactly one presentation unless the query sets `multiple`, and the required credential
 * queries / `credential_sets` present. Returns the reasons; empty means it matches.
 */
export function matchPresentationsToQuery(query: DcqlQuery, vpToken: VpToken): VpReason[] {
  const reasons: VpReason[] = [];
  const byId = new Map(query.credentials.map((c) => [c.id, c]));
  for (const [id, presentations] of Object.entries(vpToken)) {
    const credentialQuery = byId.get(id);
    if (!credentialQuery) {
      reasons.push({
        code: "unknown_credential_query",
        message: `"${id}" is not a credential query id`,
        credentialQueryId: id,
      });
      continue;
    }
    if (presentations.length === 0) {
      reasons.push({
        code: "invalid_vp_token",
        message: `"${id}" holds no presentation`,
        credentialQueryId: id,
      });
    }
    if (presentations.length > 1 && credentialQuery.multiple !== true) {
      reasons.push({
        code: "too_many_presentations",
        message: `"${id}" holds ${presentations.length} presentations but multiple is not allowed`,
        credentialQueryId: id,
      });
    }
  }
  reasons.push(...credentialSetReasons(query, Object.keys(vpToken)));
  return reasons;
}
