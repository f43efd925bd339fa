import type { TClaimDefinition } from "@cred/contracts/credential-configurations";
import { buildTypeMetadata, integrityOf, type TypeMetadata, type TypeMetadataClaim } from "@cred/oid4vc";

/**
 * The Type Metadata (SD-JWT VC §7) of a configuration whose `vct` is its default one: developer-facing
 * name and description, and its claims merged over every version (`claimsOfEveryVersion`).
 */
export function typeMetadataOf(input: {
  vct: string;
  configurationName: string;
  issuerName: string;
  schemaId: string;
  claims: TypeMetadataClaim[];
}): TypeMetadata {
  return buildTypeMetadata({
    vct: input.vct,
    name: input.configurationName,
    description: `${input.configurationName}, issued by ${input.issuerName} (schema ${input.schemaId}).`,
    claims: input.claims,
  });
}

/** A pinned document (ADR 0026): the exact text served at the `vct` and its `vct#integrity`. */
export function pinnedTypeMetadata(document: TypeMetadata): { text: string; integrity: string } {
  const text = JSON.stringify(document);
  return { text, integrity: integrityOf(text) };
}

/** What a document says of one claim, keyed by path, in a form two documents can be compared by. */
function claimRules(claims: TypeMetadata["claims"]): Map<string, string> {
  return new Map(
    (claims ?? []).map((claim) => [
      JSON.stringify(claim.path),
      JSON.stringify([claim.mandatory ?? false, claim.sd ?? "allowed", claim.display ?? []]),
    ]),
  );
}

/**
 * Whether a configuration's versions (all of them, a new one included) describe their claims exactly as
 * its pinned document does: the same paths, each with the same `mandatory`, `sd` and labels. Claim types
 * and value constraints are not part of Type Metadata, so versions may change those freely.
 */
export function versionsAgreeWithPinned(pinnedText: string, versions: TClaimDefinition[][]): boolean {
  const pinned = claimRules((JSON.parse(pinnedText) as TypeMetadata).claims);
  const merged = claimRules(buildTypeMetadata({ vct: "", claims: claimsOfEveryVersion(versions) }).claims);
  if (pinned.size !== merged.size) return false;
  for (const [path, rules] of merged) if (pinned.get(path) !== rules) return false;
  return true;
}

/**
 * The claims of a type whose credentials were issued under several versions of its configuration (the
 * `vct` stays), so that no credential of any version breaks the rules published for it: every claim of
 * any version; mandatory only where every version requires it; `always` / `never` selectively
 * disclosable where the versions agree, `allowed` where they differ. Order and labels follow the first
 * version given that has the claim (the active one first, then the newest).
 */
export function claimsOfEveryVersion(versions: TClaimDefinition[][]): TypeMetadataClaim[] {
  const byPath = new Map<string, { claim: TypeMetadataClaim; versions: number }>();
  for (const claims of versions) {
    for (const claim of claims) {
      const key = JSON.stringify(claim.path);
      const seen = byPath.get(key);
      if (!seen) {
        byPath.set(key, {
          claim: {
            path: claim.path,
            labels: claim.display?.map((d) => ({ locale: d.locale, label: d.name })),
            mandatory: claim.required,
            selectivelyDisclosable: claim.selectivelyDisclosable,
          },
          versions: 1,
        });
      } else {
        seen.versions++;
        seen.claim.mandatory &&= claim.required;
        if (seen.claim.selectivelyDisclosable !== claim.selectivelyDisclosable)
          seen.claim.selectivelyDisclosable = null;
      }
    }
  }
  // A claim some version does not define may be absent from that version's credentials.
  return [...byPath.values()].map(({ claim, versions: definedIn }) =>
    definedIn < versions.length ? { ...claim, mandatory: false } : claim,
  );
}
