import type { Db } from "@cred/db";
import { buildTypeMetadata } from "@cred/oid4vc";
import type { CoreConfig } from "../../context";
import { defaultCredentialType } from "../../credential-configurations/default-credential-type";
import { scopeOfRow } from "../../shared/scope-of";
import { issuanceCatalog } from "../issuance-catalog";
import type { WalletIssuer } from "./load-wallet-issuer";

/**
 * SD-JWT VC Type Metadata (SD-JWT VC §7.5.1, retrieval from the `vct` URL) of a configuration this issuer
 * is authorised for and whose `vct` is this URL, the default one: a configuration given another
 * `credentialType` is described wherever that type is defined, not here. Claims come from the active
 * version. Null when there is no such configuration.
 */
export async function credentialTypeMetadata(
  db: Db,
  config: CoreConfig,
  issuer: WalletIssuer,
  identifier: string,
) {
  const configuration = await issuanceCatalog.configuration(db, scopeOfRow(issuer), identifier);
  const vct = defaultCredentialType(config, issuer.id, identifier);
  if (!configuration || configuration.credentialType !== vct) return null;
  if (!(await issuanceCatalog.isGranted(db, issuer.id, configuration.id))) return null;
  const claims = (await issuanceCatalog.claims(db, configuration.id, configuration.activeVersion)) ?? [];
  return buildTypeMetadata({
    vct,
    name: configuration.displayName,
    description: `${configuration.displayName}, issued by ${issuer.displayName} (schema ${configuration.schemaId}).`,
    claims: claims.map((claim) => ({
      path: claim.path,
      labels: claim.display?.map((d) => ({ locale: d.locale, label: d.name })),
      mandatory: claim.required,
      selectivelyDisclosable: claim.selectivelyDisclosable,
    })),
  });
}
