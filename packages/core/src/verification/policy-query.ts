import { X509Certificate } from "node:crypto";
import { type DcqlQuery, InvalidDcqlQueryError, policyToDcqlQuery } from "@cred/oid4vc";
import { cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { trustSourceAnchors, trustSourceListOf } from "../trust-sources";
import type { TPolicyRules } from "../verification-policies";

// policyToDcqlQuery takes string segments only; array indices and null (every element) are valid
// claims path pointers, so they travel through it as marked strings and are restored afterwards.
const MARK = "\u0000seg:";

function encodeSegment(segment: string | number | null): string {
  return typeof segment === "string" ? segment : `${MARK}${JSON.stringify(segment)}`;
}

function decodeSegment(segment: string | number | null): string | number | null {
  return typeof segment === "string" && segment.startsWith(MARK)
    ? (JSON.parse(segment.slice(MARK.length)) as number | null)
    : segment;
}

/** SubjectKeyIdentifiers of pinned roots by their PEM (null: the root has none). */
const subjectKeyIdentifiers = cacheSpec<string | null>("verification.subjectKeyIdentifiers", { max: 1_000 });

/**
 * SubjectKeyIdentifier of a certificate, base64url: the DCQL `aki` value that matches credentials whose
 * chain was issued under it (their AuthorityKeyIdentifier). Read from the DER (extension 2.5.29.14).
 */
export function subjectKeyIdentifier(deps: Pick<AppDeps, "caches">, pem: string): string | null {
  const cache = deps.caches.of(subjectKeyIdentifiers);
  let ski = cache.peek(pem);
  if (ski === undefined) {
    ski = readSubjectKeyIdentifier(new X509Certificate(pem).raw);
    cache.set(pem, ski);
  }
  return ski;
}

function readSubjectKeyIdentifier(der: Buffer): string | null {
  const oid = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x0e]);
  let at = der.indexOf(oid);
  if (at < 0) return null;
  at += oid.length;
  if (der[at] === 0x01) at += 3; // critical BOOLEAN
  if (der[at] !== 0x04) return null; // extnValue OCTET STRING
  at += 2;
  if (der[at] !== 0x04) return null; // KeyIdentifier OCTET STRING
  const length = der[at + 1]!;
  return der.subarray(at + 2, at + 2 + length).toString("base64url");
}

/**
 * The DCQL query a session sends (OpenID4VP §6): one credential query per policy credential
 * (`meta.vct_values`, claim paths with their `values`, optional claims as `claim_sets`, `multiple`,
 * `require_cryptographic_holder_binding`), `credential_sets` for alternatives, and `trusted_authorities`
 * of type `aki` when a credential trusts X.509 roots only (and, given `trustLists`, trusted lists too:
 * `etsi_tl` with their URLs, `aki` of the CAs they grant now).
 */
export function dcqlQueryFor(
  deps: Pick<AppDeps, "caches">,
  rules: TPolicyRules,
  /** For the query a wallet receives: the trusted lists the policy's trust sources name (walletDcqlQueryFor). */
  trustLists?: ReadonlyMap<string, TrustListAuthority>,
): DcqlQuery {
  try {
    const query = policyToDcqlQuery({
      credentials: rules.credentials.map((credential) => {
        const roots = credential.trustedIssuers.flatMap((t) => ("x5cRoot" in t ? [t.x5cRoot] : []));
        const lists = credential.trustedIssuers.flatMap((t) =>
          "trustSourceId" in t && trustLists?.has(t.trustSourceId) ? [trustLists.get(t.trustSourceId)!] : [],
        );
        const akis = [
          ...roots.map((pem) => subjectKeyIdentifier(deps, pem)),
          ...lists.flatMap((list) => list.anchors.map((pem) => subjectKeyIdentifier(deps, pem))),
        ].filter((v): v is string => v !== null);
        const etsiTl = [...new Set(lists.flatMap((list) => (list.url ? [list.url] : [])))];
        // Only when every trusted issuer is one of these can the wallet be told to look no further.
        const pinnedByCertificate =
          roots.length + lists.length === credential.trustedIssuers.length && akis.length + etsiTl.length > 0;
        return {
          id: credential.id,
          credentialTypes: credential.credentialTypes,
          requiredClaims: credential.requiredClaims.map((p) => p.map(encodeSegment)),
          optionalClaims: credential.optionalClaims.map((p) => p.map(encodeSegment)),
          holderBindingRequired: credential.holderBindingRequired,
          // Rules stored before these fields existed lack them (they are read without parsing).
          claimValues: (credential.claimValues ?? []).map((c) => ({
            path: c.path.map(encodeSegment),
            values: c.values,
          })),
          multiple: credential.multiple ?? false,
          claimSets: credential.claimSets?.map((set) => set.map((p) => p.map(encodeSegment))) ?? null,
          ...(pinnedByCertificate
            ? {
                trustedAuthorities: {
                  ...(akis.length > 0 ? { aki: [...new Set(akis)] } : {}),
                  ...(etsiTl.length > 0 ? { etsiTl } : {}),
                },
              }
            : {}),
        };
      }),
      credentialSets: rules.credentialSets,
    });
    for (const credential of query.credentials) {
      for (const claim of credential.claims ?? []) claim.path = claim.path.map(decodeSegment);
    }
    return query;
  } catch (error) {
    if (error instanceof InvalidDcqlQueryError) {
      throw new DomainError("ValidationFailed", "The policy cannot be expressed as a DCQL query.", [
        { code: "InvalidPolicy", target: "policy", message: error.issues.join("; ").slice(0, 500) },
      ]);
    }
    throw error;
  }
}

/** What a trust source adds to a wallet's query: the list URL (`etsi_tl`) and the CAs in effect (`aki`). */
export interface TrustListAuthority {
  /** The trusted list's URL, for a TS 119 612 list (LoTL or TSL); null for a LoTE, which has no DCQL type. */
  url: string | null;
  /** PEM certificates granted under the policy's service type now, at most MAX_LIST_AKIS of them. */
  anchors: string[];
}

/** A LoTL grants hundreds of CAs; past this many, the wallet is given the list URL alone. */
const MAX_LIST_AKIS = 50;

/**
 * The DCQL query a wallet receives (request object, Digital Credentials API request): `dcqlQueryFor`
 * with the trusted lists of the policy's trust sources, read now. The engine matches presentations with
 * `dcqlQueryFor` alone (no `trusted_authorities` for these credentials): their issuers' trust is decided
 * by path validation against the list's CAs, which is stricter than an `aki` match.
 */
export async function walletDcqlQueryFor(
  deps: Pick<AppDeps, "caches" | "database">,
  scope: TenantScope,
  rules: TPolicyRules,
): Promise<DcqlQuery> {
  const named = rules.credentials.flatMap((credential) =>
    credential.trustedIssuers.flatMap((t) => ("trustSourceId" in t ? [t] : [])),
  );
  if (named.length === 0) return dcqlQueryFor(deps, rules);
  const lists = new Map<string, TrustListAuthority>();
  const now = Date.now();
  for (const { trustSourceId, serviceType } of named) {
    const source = await trustSourceListOf(deps, scope, trustSourceId);
    if (!source) continue;
    const anchors = await trustSourceAnchors(deps, scope, trustSourceId, serviceType, now);
    lists.set(trustSourceId, {
      url: source.kind === "lote" ? null : source.url,
      anchors: anchors.length <= MAX_LIST_AKIS ? anchors : [],
    });
  }
  return dcqlQueryFor(deps, rules, lists);
}
