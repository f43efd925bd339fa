import type { UnitOfWork } from "@cred/db";
import type { TypeMetadata, TypeMetadataClaim } from "@cred/oid4vc";
import type { TClaimDefinition } from "../../credential-configurations";
import {
  claimsOfEveryVersion,
  configurationCatalog,
  credentialConfigurationRepository,
  defaultCredentialType,
  typeMetadataOf,
} from "../../credential-configurations";
import { type Caches, cacheSpec } from "../../shared/caches";
import type { AppDeps } from "../../shared/context";
import { scopeOfRow } from "../../shared/scope-of";
import type { WalletIssuer } from "./load-wallet-issuer";

/**
 * SD-JWT VC Type Metadata (SD-JWT VC §7.5.1, retrieval from the `vct` URL) of a configuration this issuer
 * is authorised for and whose `vct` is this URL, the default one: a configuration given another
 * `credentialType` is described wherever that type is defined, not here. A pinned configuration's
 * document is the one fixed at its creation (ADR 0026); otherwise the claims describe credentials of every
 * version (`claimsOfEveryVersion`). Null when there is no such configuration.
 */
async function typeMetadataOfConfiguration(
  deps: Pick<AppDeps, "config" | "caches">,
  db: UnitOfWork,
  issuer: WalletIssuer,
  identifier: string,
): Promise<{ document: TypeMetadata; pinnedText: string | null } | null> {
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
  const pinnedText = configuration.typeMetadataDocument;
  if (pinnedText !== null) return { document: JSON.parse(pinnedText) as TypeMetadata, pinnedText };
  const document = typeMetadataOf({
    vct,
    configurationName: configuration.displayName,
    issuerName: issuer.displayName,
    schemaId: configuration.schemaId,
    claims: await claimsOfType(deps.caches, db, configuration),
  });
  return { document, pinnedText: null };
}

/** The Type Metadata document of a configuration with the default `vct` (see above), or null. */
export async function credentialTypeMetadata(
  deps: Pick<AppDeps, "config" | "caches">,
  db: UnitOfWork,
  issuer: WalletIssuer,
  identifier: string,
): Promise<TypeMetadata | null> {
  return (await typeMetadataOfConfiguration(deps, db, issuer, identifier))?.document ?? null;
}

/**
 * The exact text served at the `vct` URL: a pinned document's stored octets (what `vct#integrity`
 * hashes), otherwise the document as JSON. Null when there is no such configuration.
 */
export async function servedTypeMetadata(
  deps: Pick<AppDeps, "config" | "caches">,
  db: UnitOfWork,
  issuer: WalletIssuer,
  identifier: string,
): Promise<string | null> {
  const found = await typeMetadataOfConfiguration(deps, db, issuer, identifier);
  return found ? (found.pinnedText ?? JSON.stringify(found.document)) : null;
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
