import type { CoreConfig } from "../shared/context";

/**
 * The OpenID4VCI credential issuer identifier of an issuer: the URL wallets see as `iss` and under
 * which the issuer's metadata lives (`/.well-known/openid-credential-issuer/issuers/<id>`). The one
 * place that decides its shape; issuance and metadata code call this.
 */
export function credentialIssuerIdentifier(
  config: Pick<CoreConfig, "publicBaseUrl">,
  issuerId: string,
): string {
  return `${config.publicBaseUrl.replace(/\/+$/, "")}/issuers/${issuerId}`;
}
