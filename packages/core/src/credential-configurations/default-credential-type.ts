import { credentialIssuerIdentifier } from "../issuers";
import type { CoreConfig } from "../shared/context";

/**
 * A configuration's `vct` when none is given: a URL under its issuer, where the issuer serves the type's
 * SD-JWT VC Type Metadata.
 */
export function defaultCredentialType(
  config: Pick<CoreConfig, "publicBaseUrl">,
  issuerId: string,
  identifier: string,
): string {
  return `${credentialIssuerIdentifier(config, issuerId)}/credentials/${identifier}`;
}
