import { asObject, getJson, WalletError } from "./http";

export const PRE_AUTHORIZED_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

export interface CredentialOffer {
  credential_issuer: string;
  credential_configuration_ids: string[];
  grants?: {
    [PRE_AUTHORIZED_GRANT]?: {
      "pre-authorized_code": string;
      tx_code?: { input_mode?: string; length?: number; description?: string };
    };
    authorization_code?: { issuer_state?: string; authorization_server?: string };
  };
}

/** Where an `openid-credential-offer://` link (or any link with those parameters) puts the offer. */
export function parseOfferLink(link: string): { offer: unknown } | { offerUri: string } {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    throw new WalletError("That is not a credential offer link (openid-credential-offer://?…).");
  }
  const byValue = url.searchParams.get("credential_offer");
  const byReference = url.searchParams.get("credential_offer_uri");
  if (byValue && byReference)
    throw new WalletError("The offer has both credential_offer and credential_offer_uri.");
  if (byValue) {
    try {
      return { offer: JSON.parse(byValue) };
    } catch {
      throw new WalletError("credential_offer is not JSON.");
    }
  }
  if (byReference) return { offerUri: byReference };
  throw new WalletError("The link has neither credential_offer nor credential_offer_uri.");
}

/** Checks the members of a Credential Offer (OpenID4VCI §4.1.1) the wallet relies on. */
export function readOffer(value: unknown): CredentialOffer {
  const offer = asObject(value);
  const issuer = offer.credential_issuer;
  const ids = offer.credential_configuration_ids;
  if (typeof issuer !== "string" || !/^https?:\/\//.test(issuer)) {
    throw new WalletError("The offer has no credential_issuer URL.");
  }
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === "string")) {
    throw new WalletError("The offer names no credential_configuration_ids.");
  }
  return offer as unknown as CredentialOffer;
}

export async function resolveOffer(link: string): Promise<CredentialOffer> {
  const parsed = parseOfferLink(link);
  if ("offer" in parsed) return readOffer(parsed.offer);
  return readOffer(await getJson("Fetching the offer", parsed.offerUri));
}

/** `.well-known` URL by path insertion (RFC 8414 §3.1, OpenID4VCI §12.2.2). */
export function wellKnown(kind: string, identifier: string): string {
  const url = new URL(identifier);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return `${url.origin}/.well-known/${kind}${path}`;
}
