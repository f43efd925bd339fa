import { z } from "zod";
import { EXAMPLE_ISSUER_CERTIFICATE_CHAIN_PEM, EXAMPLE_ISSUER_ID } from "./examples";
import { zOrganisationReference } from "./organisation-reference";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { zPemCaCertificate } from "./pem-ca-certificate";
import { registerRequestExample } from "./request-example";
import { zResourceFields } from "./resource-fields";
import { isAcceptableRedirectUri } from "./server-checks";

export const ISSUER_STATUSES = ["draft", "active"] as const;
export type IssuerStatus = (typeof ISSUER_STATUSES)[number];

export const zIssuerId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "Identifier of the issuer.", example: EXAMPLE_ISSUER_ID });

const zHttpsUri = z
  .url({ protocol: /^https$/, hostname: z.regexes.domain, error: "Use an absolute https URL." })
  .max(2048);

/** BCP 47 language tag (the common subset: language, optional script/region/variants). */
export const zLocale = z
  .string()
  .regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/, "Use a BCP 47 language tag, e.g. en or nl-NL.")
  .max(35)
  .meta({ description: "BCP 47 language tag.", example: "en-GB" });

const zLogo = z.strictObject({
  uri: zHttpsUri.meta({
    description: "https URL of the logo image.",
    example: "https://acme.example/logo.png",
  }),
  altText: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Alternative text for the logo.", example: "Acme Bank logo" }),
});

export const zIssuerDisplay = z
  .strictObject({
    locale: zLocale,
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .meta({ description: "Issuer name shown by wallets in this locale.", example: "Acme Bank" }),
    description: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: "Short description in this locale.", example: "Retail bank" }),
    logo: zLogo.optional().meta({ description: "Logo wallets show for this issuer in this locale." }),
  })
  .meta({
    id: "IssuerDisplay",
    description: "Wallet-facing display metadata for one locale (OpenID4VCI issuer `display`).",
  });

export type TIssuerDisplay = z.infer<typeof zIssuerDisplay>;

const zDisplayList = z
  .array(zIssuerDisplay)
  .max(50)
  .refine((items) => new Set(items.map((d) => d.locale.toLowerCase())).size === items.length, {
    message: "Each locale may appear only once.",
  });

const zDisplayName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .meta({ description: "Name of the issuer shown in the console and to integrators.", example: "Acme Bank" });
const zDescription = z
  .string()
  .trim()
  .min(1)
  .max(1000)
  .meta({ description: "What the issuer issues, for people.", example: "Issues Acme account credentials." });
const zRequireDpop = z.boolean().meta({
  description:
    "When true, the token endpoint answers a request without a DPoP proof with 400 invalid_dpop_proof, so every access token is DPoP-bound (HAIP via FAPI 2.0: sender-constrained tokens only). Wallets that do not do DPoP then cannot redeem offers of this issuer.",
  example: false,
});
const zRequireDpopNonce = z.boolean().meta({
  description:
    "When true, every DPoP proof sent to this issuer (token, PAR, credential and notification endpoints) must carry a nonce the issuer provided: a proof without one is answered use_dpop_nonce with a DPoP-Nonce header to retry with (RFC 9449 §8, §9), and every successful response of those endpoints and of the nonce endpoint carries a fresh DPoP-Nonce. A nonce is accepted for 300 s. It bounds how far ahead a stolen key's proofs can be made; bearer tokens are not affected.",
  example: false,
});
export const zAuthorizationPage = z
  .strictObject({
    url: zHttpsUri.meta({
      description:
        "The integrator's page (https) that signs the person in and asks for consent. The authorization endpoint sends the browser there with the query parameters `interaction` (a one-time handle, valid 10 minutes), `transaction_id` (or, for a wallet-initiated request, `credential_configuration_id`), and who asks: `client_id`, `redirect_uri` and `wallet_attested`, which the consent step must show; the integrator's backend then calls Authorizations_Complete and sends the browser to the `redirectTo` it returns. With a page, wallets may also start the code flow themselves (no offer).",
      example: "https://login.acme.example/credential-consent",
    }),
  })
  .meta({
    id: "AuthorizationPage",
    description:
      "Where the authorization code flow asks for the person: without it, holding the offer is the authorization and the wallet gets a code at once.",
  });
export type TAuthorizationPage = z.infer<typeof zAuthorizationPage>;
export const zCredentialEncryptionSettings = z
  .strictObject({
    required: z.boolean().meta({
      description:
        "true: every credential request must come encrypted and ask for an encrypted response (`encryption_required`). false: wallets may choose.",
      example: false,
    }),
  })
  .meta({
    id: "IssuerCredentialEncryptionSettings",
    description:
      "Encrypted credential requests and responses (OpenID4VCI §10): the issuer publishes an ECDH-ES P-256 key in `credential_request_encryption` and answers an encrypted request that names a key in `credential_response_encryption` with an `application/jwt` JWE (A128GCM or A256GCM, no compression).",
  });
export type TCredentialEncryptionSettings = z.infer<typeof zCredentialEncryptionSettings>;

const zCredentialEncryption = zCredentialEncryptionSettings
  .extend({
    publicJwk: z.record(z.string(), z.unknown()).meta({
      description:
        "The key wallets encrypt credential requests to (its `kid`, `alg: ECDH-ES`, `use: enc`), as published in the issuer metadata. Made when encryption is turned on; the private half is sealed at rest and never leaves the service.",
      example: { kty: "EC", crv: "P-256", x: "…", y: "…", kid: "…", alg: "ECDH-ES", use: "enc" },
    }),
    previousKey: z
      .object({
        publicJwk: z
          .record(z.string(), z.unknown())
          .meta({ description: "The replaced key (no longer published)." }),
        acceptedUntil: z.string().meta({
          description: "Until when requests encrypted to it are still decrypted (ISO 8601).",
          example: "2026-11-24T12:00:00.000Z",
        }),
      })
      .nullable()
      .meta({
        description:
          "The key Issuers_RotateCredentialEncryptionKey replaced, while requests to it are still decrypted; null otherwise.",
      }),
  })
  .meta({ id: "IssuerCredentialEncryption" });

export const zAllowedRedirectUris = z
  .array(
    z
      .string()
      .max(2_000)
      .refine(
        isAcceptableRedirectUri,
        "Give an absolute URI without fragment: https, a private-use scheme (e.g. eudi-openid4ci://authorize), or http to a loopback address.",
      ),
  )
  .min(1)
  .max(50)
  .refine((uris) => new Set(uris).size === uris.length, "Each redirect URI once.")
  .meta({
    id: "AllowedRedirectUris",
    description:
      "The redirect URIs wallets may name in the authorization code flow, compared exactly (RFC 9700 §4.1.1); a pushed authorization request with any other is refused (400 invalid_request).",
    example: ["https://wallet.example.org/callback", "eudi-openid4ci://authorize"],
  });
/** Trust anchors: PEM X.509 CA certificates, up to ten, none by default (a trust source may stand instead). */
const zTrustedRoots = (description: string) =>
  z.array(zPemCaCertificate).max(10).default([]).meta({ description });

/** A trust source (docs/api/trust-sources.md) whose services of a type are trusted as attesters. */
const zAttesterTrustSource = z
  .strictObject({
    trustSourceId: z.string().min(1).max(64).meta({
      description:
        "A trust source of this tenant and environment (TrustSources_Create), typically a LoTE of wallet providers.",
      example: "ts_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
    serviceType: z
      .string()
      .min(1)
      .max(512)
      .default("http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance")
      .meta({
        description:
          "The ETSI service type whose services' certificates are trusted (status granted, or none in a TS 119 602 list, at the time of the request); default the TS 119 602 wallet provider issuance service.",
        example: "http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance",
      }),
  })
  .meta({ id: "AttesterTrustSource" });

export const zWalletAttestation = z
  .strictObject({
    trustedRoots: zTrustedRoots(
      "PEM X.509 CA certificates of the wallet providers trusted to attest wallets: a wallet attestation is accepted when its x5c chain ends at one of them (or at a CA of `trustSources`). At least one root or one trust source.",
    ),
    trustSources: z.array(zAttesterTrustSource).min(1).max(5).optional().meta({
      description:
        "Trust sources whose wallet providers are trusted: an attestation whose x5c chain ends at a CA a source grants under the service type now is accepted, as for `trustedRoots`.",
    }),
    required: z.boolean().default(false).meta({
      description:
        "When true, the pushed authorization request and token endpoints refuse a wallet without a valid attestation (401 invalid_client), as HAIP has issuers require client authentication. When false, an attestation is checked when sent and otherwise not asked for.",
      example: false,
    }),
    requireChallenge: z.boolean().default(false).meta({
      description:
        "When true, the issuer offers a challenge endpoint (`challenge_endpoint` in its authorization server metadata) and an attestation's PoP must carry one of its challenges (`challenge`, or the DPoP proof's `nonce` when the proof is the PoP): 400 `use_attestation_challenge` with a fresh `OAuth-Client-Attestation-Challenge` otherwise. Challenges are valid 5 minutes, at this issuer only.",
      example: false,
    }),
  })
  .refine((settings) => settings.trustedRoots.length + (settings.trustSources?.length ?? 0) > 0, {
    message: "Name at least one trusted root or trust source.",
    path: ["trustedRoots"],
  })
  .meta({
    id: "IssuerWalletAttestation",
    description:
      "Wallet attestation as OAuth client authentication (OpenID4VCI Appendix E, attest_jwt_client_auth) at this issuer's PAR and token endpoints.",
  });
export type TWalletAttestation = z.infer<typeof zWalletAttestation>;

/** Attack potential resistance values (OpenID4VCI Appendix D.2, or an ecosystem's URLs). */
const zResistanceLevels = (what: string) =>
  z
    .array(z.string().min(1).max(500))
    .min(1)
    .max(10)
    .optional()
    .meta({
      description: `Accepted ${what} levels (any one): e.g. iso_18045_high, iso_18045_moderate. Omitted: any.`,
      example: ["iso_18045_high", "iso_18045_moderate"],
    });

export const zKeyAttestation = z
  .strictObject({
    trustedRoots: zTrustedRoots(
      "PEM X.509 CA certificates of the key attesters (wallet providers, key storage vendors) trusted: a key attestation is accepted when its x5c chain ends at one of them (or at a CA of `trustSources`). At least one root or one trust source.",
    ),
    trustSources: z.array(zAttesterTrustSource).min(1).max(5).optional().meta({
      description:
        "Trust sources whose services of the type are trusted key attesters: a key attestation whose x5c chain ends at a CA a source grants now is accepted, as for `trustedRoots`.",
    }),
    required: z.boolean().default(false).meta({
      description:
        "When true, every key proof must carry a key attestation (jwt proofs with key_attestation, or attestation proofs), announced as key_attestations_required; otherwise one is checked when sent.",
      example: false,
    }),
    keyStorage: zResistanceLevels("key storage"),
    userAuthentication: zResistanceLevels("user authentication"),
  })
  .refine((settings) => settings.trustedRoots.length + (settings.trustSources?.length ?? 0) > 0, {
    message: "Name at least one trusted root or trust source.",
    path: ["trustedRoots"],
  })
  .meta({
    id: "IssuerKeyAttestation",
    description:
      "Key attestations (OpenID4VCI Appendix D) this issuer accepts for the keys it binds credentials to.",
  });
export type TKeyAttestation = z.infer<typeof zKeyAttestation>;

const zLogoUri = zHttpsUri.meta({
  description: "https URL of the issuer's logo.",
  example: "https://acme.example/logo.png",
});

export const zIssuerSigningKey = z
  .object({
    kid: z.string().meta({
      description: "Key id: the RFC 7638 JWK SHA-256 thumbprint of the public key.",
      example: "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs",
    }),
    alg: z.literal("ES256").meta({ description: "Signing algorithm.", example: "ES256" }),
    publicJwk: z.record(z.string(), z.unknown()).meta({
      description: "Public key as a JWK (EC P-256). The private key never leaves the service.",
      example: { kty: "EC", crv: "P-256", x: "…", y: "…", kid: "…", alg: "ES256", use: "sig" },
    }),
  })
  .meta({ id: "IssuerSigningKey", description: "The issuer's credential signing key (public part)." });

export const zPreviousSigningKey = zIssuerSigningKey
  .extend({
    retiredAt: z.string().meta({
      description: "When Issuers_RotateSigningKey replaced it (ISO 8601).",
      example: "2026-11-22T12:00:00.000Z",
    }),
  })
  .meta({
    id: "IssuerPreviousSigningKey",
    description:
      "A signing key replaced by a rotation, still published so that credentials it signed keep verifying. Nothing is signed with it any more.",
  });
export type TPreviousSigningKey = z.infer<typeof zPreviousSigningKey>;

export const zIssuerSigningCertificate = z
  .object({
    certificateChainPem: z.string().meta({
      description: "The chain as set, PEM, leaf first.",
      example: "-----BEGIN CERTIFICATE-----\nMIIB…\n-----END CERTIFICATE-----\n",
    }),
    subject: z.string().meta({ description: "Leaf subject.", example: "CN=Acme Bank, O=Acme" }),
    issuer: z.string().meta({ description: "Leaf issuer (the CA).", example: "CN=Acme Issuing CA" }),
    serialNumber: z.string().meta({ description: "Leaf serial number (hex).", example: "4F3A…" }),
    notBefore: z.string().meta({
      description: "Start of the chain's validity: the latest notBefore of its certificates (ISO 8601).",
      example: "2026-11-22T00:00:00.000Z",
    }),
    notAfter: z.string().meta({
      description: "End of the chain's validity: the earliest notAfter of its certificates (ISO 8601).",
      example: "2027-11-22T00:00:00.000Z",
    }),
    x5cLength: z.number().int().meta({
      description: "Certificates sent in `x5c`: the chain without a trailing self-signed root (HAIP).",
      example: 1,
    }),
    inUse: z.boolean().meta({
      description:
        "True while every certificate of the chain is valid: credentials and status list tokens carry `x5c`. Outside that time they go out without it (kid only).",
      example: true,
    }),
  })
  .meta({
    id: "IssuerSigningCertificate",
    description:
      "The X.509 certificate chain of the current signing key (Issuers_SetSigningCertificate), sent in the `x5c` header of credentials and status list tokens.",
  });
export type TIssuerSigningCertificate = z.infer<typeof zIssuerSigningCertificate>;

export const zNextSigningKey = zIssuerSigningKey
  .extend({
    preparedAt: z.string().meta({
      description: "When Issuers_PrepareSigningKey made it (ISO 8601).",
      example: "2026-11-22T12:00:00.000Z",
    }),
    signingCertificate: zIssuerSigningCertificate.nullable().meta({
      description: "Its certificate chain (Issuers_SetSigningCertificate with key next); null when none.",
    }),
  })
  .meta({
    id: "IssuerNextSigningKey",
    description:
      "The key the next Issuers_RotateSigningKey switches to, with its certificate chain if set. Published in the issuer's JWKS ahead of use; nothing is signed with it yet.",
  });
export type TNextSigningKey = z.infer<typeof zNextSigningKey>;

/** Which of the issuer's keys an operation is about: the one signing now, or the prepared next one. */
export const zSigningKeyChoice = z.enum(["current", "next"]).default("current").meta({
  description:
    "`current` (default): the key signing now. `next`: the key prepared by Issuers_PrepareSigningKey.",
  example: "current",
});

export type TSigningKeyChoice = z.infer<typeof zSigningKeyChoice>;

/** Who holds private keys (docs/key-custody.md): sealed in the database, or in the platform's PKCS#11 token. */
export const KEY_PROVIDERS = ["software", "pkcs11"] as const;
export type TKeyProvider = (typeof KEY_PROVIDERS)[number];

export const zStatusListSigningSettings = z
  .strictObject({
    separateKey: z.boolean().meta({
      description:
        "true: status list tokens are signed with a key of their own (made in the issuer's key custody, published in the issuer's JWKS beside the credential signing keys, without a certificate chain); false: with the credential signing key (the default).",
      example: true,
    }),
  })
  .meta({
    id: "StatusListSigningSettings",
    description: "Which key signs the issuer's status list tokens.",
  });

export type TStatusListSigningSettings = z.infer<typeof zStatusListSigningSettings>;

export const zStatusListSigning = zStatusListSigningSettings
  .extend({
    publicJwk: z.record(z.string(), z.unknown()).nullable().meta({
      description:
        "The separate status list signing key (public JWK with `kid`); null when the credential signing key signs.",
    }),
  })
  .meta({
    id: "StatusListSigning",
    description: "Which key signs the issuer's status list tokens.",
  });

/** A PKCS#11 token label (CKA_LABEL of the token: 32 characters in PKCS#11, longer ones are refused). */
export const zTokenLabel = z.string().min(1).max(32).meta({
  description:
    "`pkcs11` only: the label of the PKCS#11 token that holds the keys; it must be one the platform is configured with (400 `KeyTokenNotConfigured` otherwise). Left out or null: the platform's token.",
  example: "issuers",
});

const zKeyProviderName = z.enum(KEY_PROVIDERS).meta({
  description:
    "`software`: keys are made in the service and kept sealed under its master key. `pkcs11`: keys are generated inside the platform's hardware security module (PKCS#11 token) and never leave it; available when the platform is configured with one.",
  example: "pkcs11",
});

/** Where one purpose's keys are made: a provider, and for `pkcs11` the token. */
export const zKeyCustodyChoice = z
  .strictObject({
    provider: zKeyProviderName,
    tokenLabel: zTokenLabel.nullable().optional(),
  })
  .meta({ id: "KeyCustodyChoice", description: "Who holds the keys of one purpose, and in which token." });
export type TKeyCustodyChoice = z.infer<typeof zKeyCustodyChoice>;

/** The issuer's key purposes whose custody can be chosen one by one (docs/key-custody.md). */
export const KEY_CUSTODY_PURPOSES = [
  "credentialSigning",
  "statusListSigning",
  "credentialRequestEncryption",
] as const;
export type TKeyCustodyPurpose = (typeof KEY_CUSTODY_PURPOSES)[number];

export const zKeyCustody = zKeyCustodyChoice
  .extend({
    purposes: z
      .strictObject({
        credentialSigning: zKeyCustodyChoice.optional().meta({
          description:
            "Credential signing keys (current, next, retired); they also sign status list tokens without a separate key, signed issuer metadata and certificate signing requests.",
        }),
        statusListSigning: zKeyCustodyChoice
          .optional()
          .meta({ description: "The separate status list signing key (statusListSigning.separateKey)." }),
        credentialRequestEncryption: zKeyCustodyChoice
          .optional()
          .meta({ description: "Credential request encryption (ECDH-ES) keys (credentialEncryption)." }),
      })
      .optional()
      .meta({
        description:
          "Per key purpose, where its keys are made, overriding `provider`/`tokenLabel` for that purpose; purposes left out follow them.",
      }),
  })
  .meta({
    id: "KeyCustody",
    description:
      "Who holds the private keys made for this issuer from now on (its first signing key, prepared and rotated keys), for every purpose or per purpose. Replaced as a whole. Keys made before keep their custody: an issuer moves into an HSM by changing this, then rotating (Issuers_PrepareSigningKey, Issuers_SetSigningCertificate with key next, Issuers_RotateSigningKey).",
  });
export type TKeyCustody = z.infer<typeof zKeyCustody>;

const zEffectiveKeyCustodyChoice = z
  .object({
    provider: zKeyProviderName,
    tokenLabel: z.string().nullable().meta({
      description:
        "`pkcs11`: the token keys of this purpose are made in; null for `software` (and for issuers whose custody was chosen before token labels were recorded: the platform's token).",
      example: "issuers",
    }),
  })
  .meta({ id: "EffectiveKeyCustodyChoice", description: "Where keys of one purpose are made from now on." });

export const zIssuerKeyCustody = zEffectiveKeyCustodyChoice
  .extend({
    purposes: z
      .object({
        credentialSigning: zEffectiveKeyCustodyChoice,
        statusListSigning: zEffectiveKeyCustodyChoice,
        credentialRequestEncryption: zEffectiveKeyCustodyChoice,
      })
      .meta({ description: "The custody in effect for each key purpose (`provider` unless overridden)." }),
  })
  .meta({
    id: "IssuerKeyCustody",
    description:
      "Who holds the private keys made for this issuer from now on: the default (`provider`, `tokenLabel`) and the choice in effect per key purpose. Keys made before keep their custody.",
  });
export type TIssuerKeyCustody = z.infer<typeof zIssuerKeyCustody>;

/** More would make the issuer's JWKS long for every relying party; withdraw old keys instead. */
export const MAX_PREVIOUS_SIGNING_KEYS = 20;

export const zIssuer = z
  .object({
    id: zIssuerId,
    organisationReference: zOrganisationReference,
    displayName: zDisplayName,
    description: zDescription
      .nullable()
      .meta({ description: "What the issuer issues, for people; null when not set." }),
    logoUri: zLogoUri.nullable().meta({ description: "https URL of the issuer's logo; null when not set." }),
    display: z.array(zIssuerDisplay).meta({ description: "Wallet-facing display metadata per locale." }),
    status: z.enum(ISSUER_STATUSES).meta({
      description: "`draft` until activated; `active` issuers can issue credentials.",
      example: "draft",
    }),
    credentialIssuer: z.string().meta({
      description: "The OpenID4VCI credential issuer identifier (URL) wallets see as `iss`.",
      example: `https://credentials.example/issuers/${EXAMPLE_ISSUER_ID}`,
    }),
    signingKey: zIssuerSigningKey,
    previousSigningKeys: z.array(zPreviousSigningKey).meta({
      description:
        "Keys replaced by Issuers_RotateSigningKey and kept: published next to `signingKey` in the issuer's JWKS, newest first.",
    }),
    nextSigningKey: zNextSigningKey.nullable().meta({
      description: "The key prepared for the next rotation (Issuers_PrepareSigningKey); null when none.",
    }),
    requireDpop: zRequireDpop,
    requireDpopNonce: zRequireDpopNonce,
    walletAttestation: zWalletAttestation.nullable().meta({
      description: "Which wallet providers' attestations this issuer accepts; null when it takes none.",
    }),
    keyAttestation: zKeyAttestation.nullable().meta({
      description:
        "Which key attesters this issuer trusts for holder keys; null when it reads no key attestations.",
    }),
    authorizationPage: zAuthorizationPage.nullable().meta({
      description:
        "The integrator's sign-in and consent page for the authorization code flow; null when the wallet gets its code at once.",
    }),
    allowedRedirectUris: zAllowedRedirectUris.nullable().meta({
      description:
        "The redirect URIs wallets may use in the authorization code flow; null when any is taken.",
    }),
    credentialEncryption: zCredentialEncryption.nullable().meta({
      description: "Encrypted credential requests and responses; null when not offered.",
    }),
    signingCertificate: zIssuerSigningCertificate.nullable().meta({
      description: "The certificate chain of `signingKey`, sent as `x5c`; null when none is set.",
    }),
    keyCustody: zIssuerKeyCustody,
    statusListSigning: zStatusListSigning,
    ...zResourceFields,
    activatedAt: z.string().nullable().meta({
      description: "Activation time (ISO 8601); null while draft.",
      example: "2026-08-30T12:05:00.000Z",
    }),
  })
  .meta({ id: "Issuer", description: "An issuer of credentials, operated by an organisation." });
export type TIssuer = z.infer<typeof zIssuer>;

const zIssuerResource = resourceOf(zIssuer).meta({ id: "ManagementResourceOfIssuer" });

// Issuers_Create
export const ZCreateIssuerRequest = z.strictObject({
  organisationReference: zOrganisationReference,
  displayName: zDisplayName,
  description: zDescription.optional(),
  logoUri: zLogoUri.optional(),
  display: zDisplayList.optional().meta({
    description: "Wallet-facing display metadata per locale; at least one entry is needed to activate.",
  }),
  requireDpop: zRequireDpop
    .optional()
    .meta({ description: "Require DPoP at the token endpoint; default false." }),
  requireDpopNonce: zRequireDpopNonce
    .optional()
    .meta({ description: "Require server-provided nonces in DPoP proofs; default false." }),
  walletAttestation: zWalletAttestation
    .optional()
    .meta({ description: "Accept (or require) wallet attestations from these wallet providers." }),
  keyAttestation: zKeyAttestation
    .optional()
    .meta({ description: "Accept (or require) key attestations from these key attesters." }),
  authorizationPage: zAuthorizationPage
    .optional()
    .meta({ description: "Send people to this page to sign in and consent in the authorization code flow." }),
  allowedRedirectUris: zAllowedRedirectUris
    .optional()
    .meta({ description: "Take only these redirect URIs in the authorization code flow." }),
  credentialEncryption: zCredentialEncryptionSettings.optional().meta({
    description: "Offer (or require) encrypted credential requests and responses; default: not offered.",
  }),
  keyCustody: zKeyCustody.optional().meta({
    description: "Who holds the issuer's private keys; default `software`.",
  }),
  statusListSigning: zStatusListSigningSettings.optional().meta({
    description: "Sign status list tokens with a key of their own; default: the credential signing key.",
  }),
});
// Enough to activate the issuer once it has a credential configuration (no optional certificates).
registerRequestExample(ZCreateIssuerRequest, [], {
  organisationReference: "acme-bank",
  displayName: "Acme Bank",
  description: "Issues Acme membership cards.",
  logoUri: "https://acme.example/logo.png",
  display: [
    {
      locale: "en-GB",
      name: "Acme Bank",
      description: "Retail bank",
      logo: { uri: "https://acme.example/logo.png", altText: "Acme Bank logo" },
    },
  ],
});
export type TCreateIssuerRequest = z.infer<typeof ZCreateIssuerRequest>;
export const ZCreateIssuerResponse = zIssuerResource;

// Issuers_Get
export const ZGetIssuerRequest = z.object({ issuerId: zIssuerId });
export const ZGetIssuerResponse = zIssuerResource;

// Issuers_List
export const ZListIssuersRequest = zListQuery.extend({
  organisationReference: z
    .string()
    .max(64)
    .optional()
    .meta({ description: "Only issuers of this organisation.", example: "acme-bank" }),
  status: z
    .enum(ISSUER_STATUSES)
    .optional()
    .meta({ description: "Only issuers in this state.", example: "active" }),
});
export type TListIssuersRequest = z.infer<typeof ZListIssuersRequest>;
export const ZListIssuersResponse = collectionOf(zIssuer).meta({ id: "ManagementCollectionOfIssuer" });

// Issuers_Update (JSON merge patch: absent = unchanged, null = cleared)
/** Fields of the issuer resource that a PATCH may not set (400 ReadOnlyField). */
export const ISSUER_READ_ONLY_FIELDS = [
  "id",
  "status",
  "signingKey",
  "previousSigningKeys",
  "signingCertificate",
  "nextSigningKey",
  "kid",
  "signingKid",
  "publicJwk",
  "credentialIssuer",
  "environment",
  "createdAt",
  "updatedAt",
  "activatedAt",
] as const;

export const ZUpdateIssuerRequest = z.strictObject({
  issuerId: zIssuerId,
  organisationReference: zOrganisationReference.optional(),
  displayName: zDisplayName.optional(),
  description: zDescription.nullable().optional().meta({ description: "New description; null clears it." }),
  logoUri: zLogoUri.nullable().optional().meta({ description: "New logo URL (https); null clears it." }),
  display: zDisplayList
    .nullable()
    .optional()
    .meta({ description: "Replaces the whole display list; null clears it." }),
  requireDpop: zRequireDpop.optional(),
  requireDpopNonce: zRequireDpopNonce.optional(),
  walletAttestation: zWalletAttestation
    .nullable()
    .optional()
    .meta({ description: "Replaces the wallet attestation settings; null stops accepting attestations." }),
  keyAttestation: zKeyAttestation
    .nullable()
    .optional()
    .meta({ description: "Replaces the key attestation settings; null stops reading key attestations." }),
  authorizationPage: zAuthorizationPage
    .nullable()
    .optional()
    .meta({ description: "Replaces the authorization page; null gives wallets their code at once again." }),
  allowedRedirectUris: zAllowedRedirectUris
    .nullable()
    .optional()
    .meta({ description: "Replaces the allowed redirect URIs; null takes any again." }),
  credentialEncryption: zCredentialEncryptionSettings.nullable().optional().meta({
    description:
      "Turns encrypted credential requests and responses on (a key is made) or changes `required` (the key stays); null turns them off and discards the key.",
  }),
  keyCustody: zKeyCustody.optional().meta({
    description:
      "Where keys made from now on are held; the current keys stay where they are until the next rotation.",
  }),
  statusListSigning: zStatusListSigningSettings.optional().meta({
    description:
      "separateKey true makes a status list signing key (in the issuer's key custody) when there is none; false discards it, and the credential signing key signs status lists again.",
  }),
});
registerRequestExample(ZUpdateIssuerRequest, ["issuerId"], {
  display: [
    { locale: "en-GB", name: "Acme Bank" },
    { locale: "nl-NL", name: "Acme Bank" },
  ],
  credentialEncryption: { required: false },
});
export type TUpdateIssuerRequest = z.infer<typeof ZUpdateIssuerRequest>;
export const ZUpdateIssuerResponse = zIssuerResource;

// Issuers_Activate
export const ZActivateIssuerRequest = z.object({ issuerId: zIssuerId });
export const ZActivateIssuerResponse = zIssuerResource;

// Issuers_RotateSigningKey
export const ZRotateIssuerSigningKeyRequest = z.strictObject({
  issuerId: zIssuerId,
  replacedKey: z.enum(["keep", "withdraw"]).default("keep").meta({
    description:
      "`keep` (default): the replaced key stays published, so credentials it signed keep verifying. `withdraw`: it is no longer published (a compromised key), so they stop verifying; revoke and re-issue them.",
    example: "keep",
  }),
});
registerRequestExample(ZRotateIssuerSigningKeyRequest, ["issuerId"], { replacedKey: "keep" });
export type TRotateIssuerSigningKeyRequest = z.infer<typeof ZRotateIssuerSigningKeyRequest>;
export const ZRotateIssuerSigningKeyResponse = zIssuerResource;

// Issuers_PrepareSigningKey / Issuers_DiscardNextSigningKey
export const ZPrepareIssuerSigningKeyRequest = z.object({ issuerId: zIssuerId });
export const ZPrepareIssuerSigningKeyResponse = zIssuerResource;
export const ZDiscardNextIssuerSigningKeyRequest = z.object({ issuerId: zIssuerId });
export const ZDiscardNextIssuerSigningKeyResponse = zIssuerResource;

// Issuers_GetCertificateSigningRequest
export const ZGetIssuerCertificateSigningRequestRequest = z.object({
  issuerId: zIssuerId,
  key: zSigningKeyChoice,
});
export const ZGetIssuerCertificateSigningRequestResponse = z
  .object({
    data: z
      .object({
        certificateSigningRequestPem: z.string().meta({
          description:
            "PKCS#10 request (PEM) for the current signing key, signed with it. Subject CN = the issuer's name, O = its organisation's (each cut to 64 characters); subjectAltName = `credentialIssuer` (URI); key usage digitalSignature.",
          example: "-----BEGIN CERTIFICATE REQUEST-----\nMIIB…\n-----END CERTIFICATE REQUEST-----",
        }),
        signingKid: z.string().meta({
          description: "The key the request is for; a rotation makes the request stale.",
          example: "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs",
        }),
      })
      .meta({ id: "IssuerCertificateSigningRequest" }),
  })
  .meta({ id: "ApiEnvelopeOfIssuerCertificateSigningRequest" });

// Issuers_SetSigningCertificate
export const ZSetIssuerSigningCertificateRequest = z.strictObject({
  issuerId: zIssuerId,
  key: zSigningKeyChoice,
  certificateChainPem: z.string().min(1).max(65_536).meta({
    description:
      "PEM certificates, leaf first, each issued by the next (at most 5), each valid now. The leaf must certify the signing key chosen by `key` (current by default, or the prepared next one), be an end-entity certificate that is not self-signed and allows digitalSignature, and name `credentialIssuer` as a URI subjectAltName. A trailing self-signed root is kept here but not sent in `x5c`.",
    example: EXAMPLE_ISSUER_CERTIFICATE_CHAIN_PEM,
  }),
});
// A chain in the right form; a working one certifies the issuer's own key (its certificate signing request).
registerRequestExample(ZSetIssuerSigningCertificateRequest, ["issuerId"], {
  key: "current",
  certificateChainPem: EXAMPLE_ISSUER_CERTIFICATE_CHAIN_PEM,
});
export const ZSetIssuerSigningCertificateResponse = zIssuerResource;

// Issuers_DeleteSigningCertificate
export const ZDeleteIssuerSigningCertificateRequest = z.object({
  issuerId: zIssuerId,
  key: zSigningKeyChoice,
});
export const ZDeleteIssuerSigningCertificateResponse = zIssuerResource;

// Issuers_GetReadiness
export const READINESS_ITEM_IDS = [
  "organisation",
  "display-metadata",
  "signing-key",
  // Only for an issuer with a separate status list signing key (statusListSigning.separateKey).
  "status-list-signing-key",
  // Only for an issuer that offers credential encryption (credentialEncryption).
  "credential-request-encryption-key",
  "active-credential-configuration",
  "status-list",
  "public-base-url",
] as const;

export const zReadinessItem = z
  .object({
    id: z
      .enum(READINESS_ITEM_IDS)
      .meta({ description: "Stable id of the requirement.", example: "display-metadata" }),
    title: z
      .string()
      .meta({ description: "The requirement, for people.", example: "Display metadata complete" }),
    status: z
      .enum(["satisfied", "outstanding"])
      .meta({ description: "Whether the requirement is met.", example: "outstanding" }),
    detail: z.string().meta({
      description: "What was checked and, when outstanding, what is missing.",
      example: "Add at least one display entry with a locale and a name.",
    }),
    action: z
      .object({
        operationId: z
          .string()
          .meta({ description: "Operation that resolves it.", example: "Issuers_Update" }),
        method: z.string().meta({ description: "HTTP method.", example: "PATCH" }),
        path: z.string().meta({
          description: "Path to call (with the api-version query parameter, as every management call).",
          example: `/management/issuers/${EXAMPLE_ISSUER_ID}`,
        }),
        hint: z.string().meta({
          description: "What to send.",
          example: 'Send {"display":[{"locale":"en","name":"Acme Bank"}]}.',
        }),
      })
      .optional()
      .meta({ description: "What to do next; present when outstanding and fixable through the API." }),
  })
  .meta({ id: "IssuerReadinessItem", description: "One requirement of the readiness checklist." });
export type TReadinessItem = z.infer<typeof zReadinessItem>;

const ISO_EXAMPLE_READINESS = "2027-01-31T00:00:00.000Z";

/** Days before expiry from which a relying-party certificate counts as `expiring`. */
export const CERTIFICATE_EXPIRY_WARNING_DAYS = 30;

export const zRelyingPartyCertificateExpiry = z
  .object({
    id: z.enum(["access-certificate", "registration-certificate"]).meta({
      description:
        "Which certificate: the verifier's access certificate (WRPAC) or the relying party's registration certificate (WRPRC).",
      example: "access-certificate",
    }),
    title: z.string().meta({ description: "The certificate, for people.", example: "Access certificate" }),
    status: z.enum(["valid", "expiring", "expired", "absent", "unusable"]).meta({
      description: `valid; expiring: expires within ${CERTIFICATE_EXPIRY_WARNING_DAYS} days (a warning); expired: past its end (a failure); absent: none installed; unusable: the access certificate's key is in a key store that is unreachable, missing there, or not configured in this process, so request objects cannot be signed (a failure; the detail says which).`,
      example: "expiring",
    }),
    expiresAt: z.string().nullable().meta({
      description: "When it expires (ISO 8601); null when absent or when the registration names no `exp`.",
      example: ISO_EXAMPLE_READINESS,
    }),
    detail: z.string().meta({
      description: "What was found and, when expiring or expired, what to do.",
      example: "The access certificate for VATFI-12345678 expires in 12 day(s); import a renewed one.",
    }),
    registrationCertificateId: z.string().optional().meta({
      description:
        "For a registration certificate added by id (not the environment's default one): its id, as VerifierRegistrationCertificates_GetById names it.",
      example: "vreg_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
    relyingPartyId: z.string().nullable().optional().meta({
      description:
        "With `registrationCertificateId`: the relying party it is held for as an intermediary, null for the tenant's own.",
      example: "rp_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
  })
  .meta({
    id: "RelyingPartyCertificateExpiry",
    description: "The expiry of one relying-party certificate of the issuer's environment.",
  });
export type TRelyingPartyCertificateExpiry = z.infer<typeof zRelyingPartyCertificateExpiry>;

export const zIssuerReadiness = z
  .object({
    issuerId: zIssuerId,
    ready: z.boolean().meta({ description: "True when every item is satisfied.", example: false }),
    items: z.array(zReadinessItem).meta({ description: "One item per requirement, in a fixed order." }),
    relyingPartyCertificates: z.array(zRelyingPartyCertificateExpiry).meta({
      description:
        "The environment's relying-party certificates (access certificate, then the default registration certificate, then each registration certificate added by id, for the tenant or for a relying party it acts for) and their expiry. Shown beside the checklist: verification needs them, issuance does not, so they do not count towards `ready` nor gate Issuers_Activate.",
    }),
  })
  .meta({
    id: "IssuerReadinessResponse",
    description: "What the issuer still needs before it can be activated.",
  });
export type TIssuerReadiness = z.infer<typeof zIssuerReadiness>;

export const ZGetIssuerReadinessRequest = z.object({ issuerId: zIssuerId });
export const ZGetIssuerReadinessResponse = z
  .object({ data: zIssuerReadiness })
  .meta({ id: "ApiEnvelopeOfIssuerReadinessResponse" });

// Issuers_RotateCredentialEncryptionKey (beyond the interface specification)
export const ZRotateCredentialEncryptionKeyRequest = z.object({
  issuerId: zIssuerId,
  overlapSeconds: z
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(86_400)
    .meta({
      description:
        "How long requests encrypted to the replaced key are still decrypted (wallets that read the metadata before the rotation); 0 stops at once. Default one day, at most seven.",
      example: 86400,
    }),
});
registerRequestExample(ZRotateCredentialEncryptionKeyRequest, ["issuerId"], { overlapSeconds: 86400 });
export type TRotateCredentialEncryptionKeyRequest = z.infer<typeof ZRotateCredentialEncryptionKeyRequest>;
