import type { UnitOfWork } from "@cred/db";
import { buildTypeMetadata, type TypeMetadataClaim } from "@cred/oid4vc";
import type { TClaimDefinition } from "../../credential-configurations";
import {
  configurationCatalog,
  credentialConfigurationRepository,
  defaultCredentialType,
} from "../../credential-configurations";
import { type Caches, cacheSpec } from "../../shared/caches";
import type { AppDeps } from "../../shared/context";
import { scopeOfRow } from "../../shared/scope-of";
import type { WalletIssuer } from "./load-wallet-issuer";

/**
 * SD-JWT VC Type Metadata (SD-JWT VC §7.5.1, retrieval from the `vct` URL) of a configuration this issuer
 * is authorised for and whose `vct` is this URL, the default one: a configuration given another
 * `credentialType` is described wherever that type is defined, not here. The claims describe credentials
 * of every version (`claimsOfEveryVersion`). Null when there is no such configuration.
 */
export async function credentialTypeMetadata(
  deps: Pick<AppDeps, "config" | "caches">,
  db: UnitOfWork,
  issuer: WalletIssuer,
  identifier: string,
) {
  const { config } = deps;
  const configuration = await configurationCatalog.configuration(
    db,
    deps.caches,
    scopeOfRow(issuer),
    identifier,
  );
  const vct = defaultCredentialType(config, issuer.id, identifier);
  if (!configuration || configuration.credentialType !== vct) return null;
  if (!(await configurationCatalog.isGranted(db, deps.caches, issuer.id, configuration.id))) return null;
  return buildTypeMetadata({
    vct,
    name: configuration.displayName,
    description: `${configuration.displayName}, issued by ${issuer.displayName} (schema ${configuration.schemaId}).`,
    claims: await claimsOfType(deps.caches, db, configuration),
  });
}

/**
 * The merged claims of a configuration, kept per state of its row: every version change (a new version,
 * an activation) updates the row's `updatedAt`, and versions themselves never change, so a kept merge is
 * exact for as long as the row it was made from is the current one.
 */
const MERGED_CLAIMS = cacheSpec<TypeMetadataClaim[]>("issuance.typeMetadataClaims", { max: 512 });

function claimsOfType(
  caches: Caches,
  db: UnitOfWork,
  configuration: { id: string; activeVersion: number; updatedAt: Date },
) {
  const key = `${configuration.id}@${configuration.updatedAt.getTime()}#${configuration.activeVersion}`;
  return caches.of(MERGED_CLAIMS).get(key, async () => {
    const versions = await credentialConfigurationRepository.versionsOfOne(db, configuration.id);
    const active = versions.find((v) => v.version === configuration.activeVersion);
    const others = versions.filter((v) => v !== active).reverse();
    return claimsOfEveryVersion(
      [active, ...others].flatMap((v) => (v ? [v.claims as TClaimDefinition[]] : [])),
    );
  });
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
