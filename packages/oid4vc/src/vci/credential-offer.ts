import { z } from "zod";

export const PRE_AUTHORIZED_CODE_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
export const AUTHORIZATION_CODE_GRANT = "authorization_code";
export const CREDENTIAL_OFFER_SCHEME = "openid-credential-offer://";

export const ZTxCode = z.object({
  input_mode: z.enum(["numeric", "text"]).optional(),
  length: z.number().int().positive().optional(),
  description: z.string().max(300).optional(),
});
export type TTxCode = z.infer<typeof ZTxCode>;

/** Credential Offer object (OpenID4VCI §4.1.1) with the pre-authorized code or authorization code grant. */
export const ZCredentialOffer = z.object({
  credential_issuer: z.string().url(),
  credential_configuration_ids: z
    .array(z.string().min(1))
    .min(1)
    .refine((ids) => new Set(ids).size === ids.length, "credential_configuration_ids must be unique"),
  grants: z
    .looseObject({
      [PRE_AUTHORIZED_CODE_GRANT]: z
        .object({
          "pre-authorized_code": z.string().min(1),
          tx_code: ZTxCode.optional(),
          authorization_server: z.string().optional(),
        })
        .optional(),
      [AUTHORIZATION_CODE_GRANT]: z
        .object({
          issuer_state: z.string().min(1).optional(),
          authorization_server: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
});
export type TCredentialOffer = z.infer<typeof ZCredentialOffer>;

export type BuildCredentialOfferInput = {
  credentialIssuer: string;
  configurationIds: string[];
  /** Only when the issuer metadata lists several authorization servers. */
  authorizationServer?: string;
} & (
  | {
      preAuthorizedCode: string;
      /**
       * Transaction code hints. Passing an object, even `{}`, tells the wallet a tx_code is required;
       * omit it when none is.
       */
      txCode?: { input_mode?: "numeric" | "text"; length?: number; description?: string };
    }
  | {
      /** Authorization code grant: the value the wallet sends back at the authorization request (§4.1.1). */
      issuerState: string;
    }
);

/**
 * Builds a Credential Offer for the pre-authorized code flow, or with `issuerState` for the
 * authorization code flow; throws on values the spec forbids.
 */
export function buildCredentialOffer(input: BuildCredentialOfferInput): TCredentialOffer {
  if ("issuerState" in input) {
    return ZCredentialOffer.parse({
      credential_issuer: input.credentialIssuer,
      credential_configuration_ids: [...input.configurationIds],
      grants: {
        [AUTHORIZATION_CODE_GRANT]: {
          issuer_state: input.issuerState,
          ...(input.authorizationServer === undefined
            ? {}
            : { authorization_server: input.authorizationServer }),
        },
      },
    });
  }
  const grant: NonNullable<NonNullable<TCredentialOffer["grants"]>[typeof PRE_AUTHORIZED_CODE_GRANT]> = {
    "pre-authorized_code": input.preAuthorizedCode,
  };
  if (input.txCode !== undefined) {
    const txCode: TTxCode = {};
    if (input.txCode.input_mode !== undefined) txCode.input_mode = input.txCode.input_mode;
    if (input.txCode.length !== undefined) txCode.length = input.txCode.length;
    if (input.txCode.description !== undefined) txCode.description = input.txCode.description;
    grant.tx_code = txCode;
  }
  if (input.authorizationServer !== undefined) grant.authorization_server = input.authorizationServer;
  const offer: TCredentialOffer = {
    credential_issuer: input.credentialIssuer,
    credential_configuration_ids: [...input.configurationIds],
    grants: { [PRE_AUTHORIZED_CODE_GRANT]: grant },
  };
  return ZCredentialOffer.parse(offer);
}

/**
 * The offer deep link (§4.1): exactly one of `credential_offer` (by value, URL-encoded JSON) or
 * `credential_offer_uri` (by reference; must be https — `allowHttp` relaxes that for local development).
 */
export function credentialOfferLink(
  source: { offer: TCredentialOffer } | { offerUri: string },
  scheme: string = CREDENTIAL_OFFER_SCHEME,
  options: { allowHttp?: boolean } = {},
): string {
  const base = scheme.endsWith("?") ? scheme : `${scheme}${scheme.includes("?") ? "&" : "?"}`;
  if ("offerUri" in source) {
    const secure = source.offerUri.startsWith("https://");
    if (!secure && !(options.allowHttp && source.offerUri.startsWith("http://")))
      throw new TypeError("credential_offer_uri must be an https URL");
    return `${base}credential_offer_uri=${encodeURIComponent(source.offerUri)}`;
  }
  return `${base}credential_offer=${encodeURIComponent(JSON.stringify(source.offer))}`;
}

/** Wallet side / tests: parses an offer link into either the offer or the offer URI. */
export function parseCredentialOfferLink(link: string): { offer: TCredentialOffer } | { offerUri: string } {
  const query = link.slice(link.indexOf("?") + 1);
  const params = new URLSearchParams(query);
  const byValue = params.getAll("credential_offer");
  const byReference = params.getAll("credential_offer_uri");
  if (byValue.length + byReference.length !== 1) {
    throw new TypeError("exactly one of credential_offer or credential_offer_uri is required");
  }
  if (byReference[0] !== undefined) return { offerUri: byReference[0] };
  return { offer: ZCredentialOffer.parse(JSON.parse(byValue[0]!)) };
}
