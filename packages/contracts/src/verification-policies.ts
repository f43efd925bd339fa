import { z } from "zod";
import { zPolicyDcApi } from "./dc-api";
import { EXAMPLE_CREDENTIAL_TYPE, EXAMPLE_ISSUER_ID } from "./examples";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { zPemCaCertificate } from "./pem-ca-certificate";
import { registerRequestExample } from "./request-example";

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";

/** The longest a verification session may stay open (a policy's `sessionLifetimeSeconds`). */
export const SESSION_LIFETIME_MAX_SECONDS = 3600;

export const zPolicyIdentifier = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "Use 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
  )
  .meta({
    description:
      "Caller-chosen identifier, unique per tenant and environment; named when starting a verification.",
    example: "over-18",
  });

export const zPolicyStatus = z.enum(["active", "suspended"]).meta({
  description: "`active` policies can start verifications; `suspended` ones are refused until reactivated.",
  example: "active",
});

/** A DCQL claims path pointer (OpenID4VP §7): object keys, array indices, or null for every element. */
export const zClaimPath = z
  .array(
    z.union([
      z.string().min(1).max(256).meta({ description: "Object key." }),
      z.number().int().min(0).max(10_000).meta({ description: "Array index." }),
      z.null().meta({ description: "Every element of an array." }),
    ]),
  )
  .min(1)
  .max(16)
  .refine((path) => typeof path[0] === "string", "A claim path starts with a claim name.")
  .meta({
    description:
      "Claims path pointer (OpenID4VP DCQL): claim names, with non-negative integers or null to select array elements.",
    example: ["address", "country"],
  });

const zHttpsUrl = z.url({ protocol: /^https$/, error: "Use an https URL." }).max(2048);

export const zTrustedIssuer = z
  .union([
    z
      .strictObject({
        issuerId: z.string().min(1).max(64).meta({
          description: "An issuer of this tenant and environment.",
          example: "iss_01jd5x6c3v8w9y0z1a2b3c4d5e",
        }),
      })
      .meta({ title: "TrustedPlatformIssuer", description: "An issuer managed on this platform." }),
    z
      .strictObject({
        jwksUri: zHttpsUrl.meta({
          description: "https URL of the external issuer's JWKS (public keys that sign its credentials).",
          example: "https://issuer.example.com/.well-known/jwks.json",
        }),
      })
      .meta({ title: "TrustedJwksIssuer", description: "An external issuer identified by its JWKS." }),
    z
      .strictObject({
        credentialIssuer: zHttpsUrl.meta({
          description:
            "The external issuer's identifier (the credentials' `iss`); its keys are read from its SD-JWT VC issuer metadata at `/.well-known/jwt-vc-issuer` (path inserted before the identifier's path).",
          example: "https://issuer.example.com/tenant-1",
        }),
      })
      .meta({
        title: "TrustedJwtVcIssuer",
        description: "An external issuer resolved through its `/.well-known/jwt-vc-issuer` metadata.",
      }),
    z
      .strictObject({
        x5cRoot: zPemCaCertificate.meta({
          description:
            "PEM X.509 CA root certificate; credentials whose x5c chain ends at it (RFC 5280 path validation) are trusted.",
        }),
      })
      .meta({ title: "TrustedX5cRoot", description: "External issuers certified under an X.509 root." }),
    z
      .strictObject({
        trustSourceId: z.string().min(1).max(64).meta({
          description:
            "A trust source (TrustSources_Create) of this tenant and environment: an ETSI trusted list whose last good copy names the issuers' CAs.",
          example: "ts_01jd5x6c3v8w9y0z1a2b3c4d5e",
        }),
        serviceType: z.string().min(1).max(512).meta({
          description:
            "The ETSI service type (ServiceTypeIdentifier URI) whose services' certificates are trusted, with status granted (or, in a TS 119 602 list, no status) at verification time: e.g. `http://uri.etsi.org/TrstSvc/Svctype/CA/QC` or `http://uri.etsi.org/19602/SvcType/PID/Issuance`. Credentials whose x5c chain ends at one of them (RFC 5280 path validation) are trusted.",
          example: "http://uri.etsi.org/19602/SvcType/PID/Issuance",
        }),
      })
      .meta({
        title: "TrustedListIssuer",
        description: "External issuers whose CA a trusted list names under a service type.",
      }),
  ])
  .meta({
    description:
      "One trust source: a platform issuer, an external JWKS, an external issuer by its metadata, an X.509 root, or the services of a type in a trusted list.",
  });

export const zCredentialId = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, "Use letters, digits, '_' and '-'.")
  .max(64)
  .meta({
    description: "Id of this credential within the policy (a DCQL credential query id).",
    example: "pid",
  });

/** DCQL claim `values` (OpenID4VP §6.3) of one requested claim. */
export const zClaimValues = z
  .strictObject({
    path: zClaimPath,
    values: z
      .array(z.union([z.string().max(512), z.int(), z.boolean()]))
      .min(1)
      .max(50)
      .meta({
        description: "Accepted values: strings, integers or booleans, matched exactly.",
        example: [true],
      }),
  })
  .meta({ id: "VerificationPolicyClaimValues", description: "The values a requested claim must have." });

export const zPolicyCredential = z
  .strictObject({
    id: zCredentialId,
    credentialTypes: z
      .array(z.string().min(1).max(512).meta({ example: "https://credentials.example.com/pid" }))
      .min(1)
      .max(20)
      .meta({
        description:
          "Accepted SD-JWT VC types (`vct`). Each must be the credentialType of a credential configuration in this environment, unless the credential trusts an external issuer (jwksUri, credentialIssuer, x5cRoot or trustSourceId).",
        example: ["https://credentials.example.com/pid"],
      }),
    trustedIssuers: z
      .array(zTrustedIssuer)
      .min(1)
      .max(20)
      .meta({
        description: "Issuers whose credentials are accepted.",
        example: [{ issuerId: "iss_01jd5x6c3v8w9y0z1a2b3c4d5e" }],
      }),
    requiredClaims: z
      .array(zClaimPath)
      .max(100)
      .default([])
      .meta({
        description: "Claims the holder must disclose.",
        example: [["given_name"], ["age_equal_or_over", "18"]],
      }),
    optionalClaims: z
      .array(zClaimPath)
      .max(100)
      .default([])
      .meta({ description: "Claims requested when available.", example: [["family_name"]] }),
    claimValues: z
      .array(zClaimValues)
      .max(100)
      .default([])
      .meta({
        description:
          "Values some requested claims must have (DCQL `values`): each path is one of requiredClaims or optionalClaims. A presentation disclosing such a claim with none of its values is rejected (`claim_value_mismatch`).",
        example: [{ path: ["age_over_18"], values: [true] }],
      }),
    claimSets: z
      .array(z.array(zClaimPath).min(1).max(100))
      .min(1)
      .max(20)
      .nullable()
      .default(null)
      .meta({
        description:
          "Alternative combinations of optionalClaims, most preferred first (DCQL `claim_sets`): the holder discloses every requiredClaims entry and all claims of one combination, else the presentation is rejected (`missing_required_claims`). Null: optional claims are simply optional.",
        example: [[["birthdate"]], [["age_over_18"]]],
      }),
    multiple: z.boolean().default(false).meta({
      description:
        "Accept several credentials for this entry (DCQL `multiple`); otherwise an answer with more than one is rejected (`too_many_presentations`).",
      example: false,
    }),
    holderBindingRequired: z.boolean().default(true).meta({
      description:
        "Require proof of possession of the holder key (key binding JWT); false is sent as DCQL `require_cryptographic_holder_binding: false` and accepts credentials without a holder key (`cnf`) presented without a key binding JWT.",
      example: true,
    }),
    checkStatus: z
      .boolean()
      .default(true)
      .meta({ description: "Check the credential's status list (revocation).", example: true }),
    maxCredentialAgeDays: z.number().int().min(1).max(36_500).nullable().default(null).meta({
      description: "Refuse credentials issued longer ago than this many days; null for no limit.",
      example: 365,
    }),
    acceptExtendedTypes: z.boolean().default(false).meta({
      description:
        "Also accept a credential whose vct extends one of credentialTypes, as the SD-JWT VC Type Metadata at each type's https URL says (every link fetched and, where an integrity value is given, matched). The link is asserted by whoever hosts the type's metadata, not signed by the issuer; trust still comes from trustedIssuers alone.",
      example: false,
    }),
  })
  .meta({
    id: "VerificationPolicyCredential",
    description: "One credential the holder is asked to present.",
  });

export const zCredentialSet = z
  .strictObject({
    options: z
      .array(z.array(zCredentialId).min(1).max(20))
      .min(1)
      .max(20)
      .meta({
        description: "Alternative combinations of credential ids; any one option satisfies the set.",
        example: [["pid"], ["mdl"]],
      }),
    required: z
      .boolean()
      .default(true)
      .meta({ description: "Whether the set must be satisfied.", example: true }),
  })
  .meta({ id: "VerificationPolicyCredentialSet", description: "A DCQL credential set." });

/** More would make every request object large; an attestation is a JWT or a small object. */
const MAX_VERIFIER_INFO_DATA = 16_384;
const MAX_VERIFIER_INFO_TOTAL = 32_768;

export const zVerifierInfo = z
  .strictObject({
    format: z.string().min(1).max(200).meta({
      description:
        "What the attestation is and how it is encoded, an identifier of the wallet's ecosystem (e.g. a registration certificate's format).",
      example: "registration_cert",
    }),
    data: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .refine(
        (data) => (typeof data === "string" ? data : JSON.stringify(data)).length <= MAX_VERIFIER_INFO_DATA,
        `At most ${MAX_VERIFIER_INFO_DATA} characters (as JSON, for an object).`,
      )
      .meta({
        description:
          "The attestation: a string (e.g. a signed JWT) or an object, passed to the wallet as given.",
        example: "eyJhbGciOiJFUzI1NiIsInR5cCI6InJjLXJwK2p3dCJ9…",
      }),
    credentialIds: z
      .array(zCredentialId)
      .min(1)
      .max(20)
      .refine((ids) => new Set(ids).size === ids.length, "Each credential id once.")
      .optional()
      .meta({
        description: "The policy credentials it is relevant to; omitted: all of them.",
        example: ["pid"],
      }),
  })
  .meta({
    id: "VerificationPolicyVerifierInfo",
    description:
      "An attestation about the verifier (OpenID4VP §5.1 `verifier_info`), e.g. a registration certificate, that wallets may use for authorization decisions or show in the consent dialog.",
  });

const rulesShape = {
  credentials: z
    .array(zPolicyCredential)
    .min(1)
    .max(20)
    .meta({ description: "Credentials requested from the holder." }),
  credentialSets: z.array(zCredentialSet).min(1).max(20).nullable().default(null).meta({
    description: "Combinations of credentials that satisfy the request; null means all credentials.",
  }),
  responseMode: z.enum(["direct_post.jwt", "direct_post"]).default("direct_post.jwt").meta({
    description: "OpenID4VP response mode; `direct_post.jwt` encrypts the wallet's response.",
    example: "direct_post.jwt",
  }),
  dcApi: zPolicyDcApi,
  sessionLifetimeSeconds: z
    .number()
    .int()
    .min(60)
    .max(SESSION_LIFETIME_MAX_SECONDS)
    .default(600)
    .meta({ description: "How long a verification session stays open, 60–3600 seconds.", example: 600 }),
  clientIdPrefix: z
    .enum(["x509_hash", "x509_san_dns", "redirect_uri", "decentralized_identifier"])
    .default("x509_hash")
    .meta({
      description:
        "Client identifier prefix of the verifier in the wallet request: `x509_hash` (HAIP, hash of the verifier certificate) or `x509_san_dns` (the certificate's dNSName, which must be the public host, and that a DNS name, not an IP address; otherwise starting a verification fails with 409 VerifierCertificateMismatch), both with a signed request object; or `redirect_uri` (OpenID4VP §5.9.3, the low-assurance option for a verifier without a certificate: the client_id is the session's response URI and the unsigned request travels by value in `authorizationRequestUri`; `responseMode: direct_post` only, and no signed Digital Credentials API requests); or `decentralized_identifier` (§5.9.3: the client_id is the `did:jwk` of the verifier certificate's key, and request objects carry `kid` = its verification method instead of `x5c`).",
      example: "x509_hash",
    }),
  didMethod: z.enum(["jwk", "web"]).default("jwk").meta({
    description:
      "The DID of a `decentralized_identifier` verifier: `jwk` (`did:jwk` of the verifier certificate's key; a new key is a new DID) or `web` (`did:web:<public host>:verifier:<tenantId>:<environment>`, whose DID document the platform serves at `<public base URL>/verifier/<tenantId>/<environment>/did.json` with the current verifier key; request objects carry `kid` = `<did>#<JWK thumbprint>`; the DID survives a certificate replacement). Only with `clientIdPrefix: decentralized_identifier`.",
    example: "jwk",
  }),
  sameDeviceRedirectUri: zHttpsUrl.nullable().default(null).meta({
    description: "https URL the wallet returns the user to in same-device flows; null for none.",
    example: "https://shop.example.com/checkout/verified",
  }),
  relyingPartyId: z.string().min(1).max(64).optional().meta({
    description:
      'The relying party (RelyingParties_Create) this tenant acts for as an intermediary under this policy: verifications are recorded as its, carry its registration certificates in `verifier_info` (those `registrationCertificateIds` names, which must be its, or else all of its own) and may ask only for what they register. Absent: the tenant is itself the relying party (docs/api/relying-party-certificates.md, "Intermediaries").',
    example: "rp_01jd5x6c3v8w9y0z1a2b3c4d5e",
  }),
  registrationCertificateIds: z
    .array(
      z.string().min(1).max(64).meta({
        description: "A registration certificate of this environment (VerifierRegistrationCertificates_Add).",
        example: "vreg_01jd5x6c3v8w9y0z1a2b3c4d5e",
      }),
    )
    .min(1)
    .max(10)
    .refine((ids) => new Set(ids).size === ids.length, "Name each registration certificate once.")
    .optional()
    .meta({
      description:
        "The relying party's registration certificates (WRPRC, ETSI TS 119 475) verifications under this policy carry in `verifier_info` and are limited by: each DCQL credential query must be registered by at least one of them (409 NotRegistered otherwise). Absent: the environment's default registration certificate, if any (docs/api/relying-party-certificates.md).",
    }),
  verifierInfo: z
    .array(zVerifierInfo)
    .min(1)
    .max(10)
    .refine(
      (entries) => JSON.stringify(entries).length <= MAX_VERIFIER_INFO_TOTAL,
      `At most ${MAX_VERIFIER_INFO_TOTAL} characters in all (as JSON): every request object carries them.`,
    )
    .nullable()
    .default(null)
    .meta({
      description:
        "Attestations about the verifier sent with every request of this policy as `verifier_info` (OpenID4VP §5.1); null for none.",
    }),
  reportInvalidPresentationsToWallet: z.boolean().default(false).meta({
    description:
      'When true, a wallet response whose presentation fails integrity or holder binding (issuer signature, disclosures, key binding JWT signature, `aud`, `nonce`, `iat`, `sd_hash`, transaction data hashes, a malformed `vp_token`) and so leaves the session `rejected` is answered at the response endpoint with HTTP 400 `{ error: "invalid_request" }` (OpenID4VP §8.5) instead of 200 and the redirect, so the wallet tells the holder at once. The session is decided exactly as with false (`rejected`, same reasons, event and webhooks). A presentation that is genuine but not accepted (untrusted issuer, expired, revoked, missing claims) and a wallet\'s own error response are still answered 200. Default false: every response the endpoint could process is answered 200.',
    example: false,
  }),
  requireResponseCode: z.boolean().default(false).meta({
    description:
      "When true (needs `sameDeviceRedirectUri`), a session a wallet answered shows its `result` only to a Verifications_Get that passes the `response_code` its redirect delivered (OpenID4VP §13.3, §14.2: the result then goes to the browser the holder came back in, not to whoever started the session). For same-device use only: in a cross-device flow the redirect opens on the phone and the code never reaches the relying party's front end.",
    example: false,
  }),
};

type RulesInput = {
  credentials: {
    id: string;
    requiredClaims: (string | number | null)[][];
    optionalClaims: (string | number | null)[][];
    claimValues?: { path: (string | number | null)[] }[];
    claimSets?: (string | number | null)[][][] | null;
  }[];
  credentialSets: { options: string[][] }[] | null;
  verifierInfo?: { credentialIds?: string[] | undefined }[] | null;
  sameDeviceRedirectUri: string | null;
  requireResponseCode: boolean;
  responseMode?: string;
  clientIdPrefix?: string;
  didMethod?: string;
};

/**
 * Cross-field rules: unique credential ids, well-formed claim lists, credential sets naming known ids,
 * a response code required only where a redirect delivers one.
 */
function checkRuleConsistency(rules: RulesInput, ctx: z.RefinementCtx) {
  if (rules.requireResponseCode && rules.sameDeviceRedirectUri === null) {
    ctx.addIssue({
      code: "custom",
      path: ["requireResponseCode"],
      message: "A response code is only delivered by a same-device redirect: set sameDeviceRedirectUri too.",
    });
  }
  if (rules.clientIdPrefix === "redirect_uri" && rules.responseMode !== "direct_post") {
    ctx.addIssue({
      code: "custom",
      path: ["clientIdPrefix"],
      message:
        "The redirect_uri client identifier prefix sends an unsigned request by value: it needs responseMode direct_post (OpenID4VP §5.9.3).",
    });
  }
  if (rules.didMethod === "web" && rules.clientIdPrefix !== "decentralized_identifier") {
    ctx.addIssue({
      code: "custom",
      path: ["didMethod"],
      message:
        "didMethod names the DID of the decentralized_identifier client identifier prefix: set clientIdPrefix too.",
    });
  }
  const ids = new Set<string>();
  rules.credentials.forEach((credential, i) => {
    if (ids.has(credential.id)) {
      ctx.addIssue({
        code: "custom",
        path: ["credentials", i, "id"],
        message: `The credential id '${credential.id}' is used more than once.`,
      });
    }
    ids.add(credential.id);
    const required = new Set<string>();
    for (const [list, kind] of [
      [credential.requiredClaims, "requiredClaims"],
      [credential.optionalClaims, "optionalClaims"],
    ] as const) {
      const seen = new Set<string>();
      list.forEach((path, j) => {
        const key = JSON.stringify(path);
        if (seen.has(key)) {
          ctx.addIssue({
            code: "custom",
            path: ["credentials", i, kind, j],
            message: `The claim path ${key} is listed more than once.`,
          });
        } else if (kind === "optionalClaims" && required.has(key)) {
          ctx.addIssue({
            code: "custom",
            path: ["credentials", i, kind, j],
            message: `The claim path ${key} cannot be both required and optional.`,
          });
        }
        seen.add(key);
        if (kind === "requiredClaims") required.add(key);
      });
    }
    const requested = new Set(
      [...credential.requiredClaims, ...credential.optionalClaims].map((p) => JSON.stringify(p)),
    );
    const optional = new Set(credential.optionalClaims.map((p) => JSON.stringify(p)));
    credential.claimSets?.forEach((set, j) => {
      set.forEach((path, k) => {
        if (optional.has(JSON.stringify(path))) return;
        const message = `The claim path ${JSON.stringify(path)} of a claim set is not one of optionalClaims.`;
        ctx.addIssue({ code: "custom", path: ["credentials", i, "claimSets", j, k], message });
      });
    });
    const valued = new Set<string>();
    credential.claimValues?.forEach(({ path }, j) => {
      const key = JSON.stringify(path);
      const problem = !requested.has(key)
        ? `The claim path ${key} has values but is in neither requiredClaims nor optionalClaims.`
        : valued.has(key)
          ? `The claim path ${key} has values listed more than once.`
          : null;
      if (problem)
        ctx.addIssue({
          code: "custom",
          path: ["credentials", i, "claimValues", j, "path"],
          message: problem,
        });
      valued.add(key);
    });
  });
  rules.verifierInfo?.forEach((info, i) => {
    info.credentialIds?.forEach((id, k) => {
      if (!ids.has(id)) {
        ctx.addIssue({
          code: "custom",
          path: ["verifierInfo", i, "credentialIds", k],
          message: `No credential in this policy has the id '${id}'.`,
        });
      }
    });
  });
  rules.credentialSets?.forEach((set, i) => {
    set.options.forEach((option, j) => {
      option.forEach((id, k) => {
        if (!ids.has(id)) {
          ctx.addIssue({
            code: "custom",
            path: ["credentialSets", i, "options", j, k],
            message: `No credential in this policy has the id '${id}'.`,
          });
        }
      });
    });
  });
}

/**
 * A policy must ask for at least one claim: one that asks for none verifies a credential and learns
 * nothing about its holder, a mistake a new user makes easily. Checked on what callers send (create,
 * new version), not on stored rules, so policies made before this rule stay readable.
 */
function checkSomeClaimRequested(
  rules: { credentials: { requiredClaims: unknown[]; optionalClaims: unknown[] }[] },
  ctx: z.RefinementCtx,
) {
  if (rules.credentials.some((c) => c.requiredClaims.length + c.optionalClaims.length > 0)) return;
  ctx.addIssue({
    code: "custom",
    path: ["credentials"],
    message:
      'The policy asks for no claims: list at least one claim path (e.g. ["given_name"]) in requiredClaims or optionalClaims of a credential.',
  });
}

/** The rules of a policy: as stored, as returned, and the tail of the create request. */
export const zPolicyRules = z.object(rulesShape).superRefine(checkRuleConsistency).meta({
  id: "VerificationPolicyRules",
  description: "What a verification under this policy asks for and accepts.",
});
/** Rules as stored: those stored before `dcApi` or `didMethod` existed lack them (read as their defaults). */
export type TPolicyRules = Omit<z.infer<typeof zPolicyRules>, "dcApi" | "didMethod"> &
  Partial<Pick<z.infer<typeof zPolicyRules>, "dcApi" | "didMethod">>;
export type TPolicyCredential = z.infer<typeof zPolicyCredential>;

export const ZCreateVerificationPolicyRequest = z
  .strictObject({
    identifier: zPolicyIdentifier,
    displayName: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .meta({ description: "Name shown to people.", example: "Age over 18" }),
    purpose: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .nullish()
      .meta({ description: "Default purpose shown to the holder.", example: "Age check at checkout" }),
    ...rulesShape,
  })
  .superRefine(checkRuleConsistency)
  .superRefine(checkSomeClaimRequested)
  .meta({ id: "CreateVerificationPolicyRequest" });
// Accepts the membership card of the credential configuration example, issued by the issuer example.
registerRequestExample(ZCreateVerificationPolicyRequest, [], {
  identifier: "over-18",
  displayName: "Age over 18",
  purpose: "Age check at checkout",
  credentials: [
    {
      id: "membership",
      credentialTypes: [EXAMPLE_CREDENTIAL_TYPE],
      trustedIssuers: [{ issuerId: EXAMPLE_ISSUER_ID }],
      requiredClaims: [["age_equal_or_over", "18"]],
    },
  ],
});
export type TCreateVerificationPolicyRequest = z.infer<typeof ZCreateVerificationPolicyRequest>;

const timestamps = {
  createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
  updatedAt: z.string().meta({ description: "Last change (ISO 8601).", example: ISO_EXAMPLE }),
};

/** At most this many versions per policy: each is listed with it. */
export const MAX_POLICY_VERSIONS = 100;

export const zVerificationPolicyVersion = z
  .object({
    version: z.int().meta({ description: "Version number, from 1.", example: 1 }),
    status: z
      .enum(["active", "superseded"])
      .meta({ description: "`active` for the version in use.", example: "active" }),
    reason: z
      .string()
      .nullable()
      .meta({ description: "Why the version exists.", example: "Also accepts the mobile driving licence" }),
    createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
    activatedAt: z.string().nullable().meta({
      description: "When the version last became the active one (ISO 8601).",
      example: ISO_EXAMPLE,
    }),
  })
  .meta({ id: "VerificationPolicyVersion", description: "One version of a verification policy." });

export const zVerificationPolicy = z
  .object({
    identifier: zPolicyIdentifier,
    displayName: z.string().meta({ description: "Name shown to people.", example: "Age over 18" }),
    purpose: z
      .string()
      .nullable()
      .meta({ description: "Default purpose shown to the holder.", example: "Age check at checkout" }),
    status: zPolicyStatus,
    rules: zPolicyRules,
    activeVersion: z.int().meta({
      description: "The version in use: displayName, purpose and rules above are this version's.",
      example: 1,
    }),
    versions: z.array(zVerificationPolicyVersion).meta({ description: "Every version, oldest first." }),
    ...timestamps,
  })
  .meta({ id: "PublicVerificationPolicyResponse", description: "A server-managed verification policy." });
export type TVerificationPolicy = z.infer<typeof zVerificationPolicy>;

/** What lists show: never the rules. */
export const zVerificationPolicySummary = z
  .object({
    identifier: zPolicyIdentifier,
    displayName: z.string().meta({ description: "Name shown to people.", example: "Age over 18" }),
    status: zPolicyStatus,
  })
  .meta({
    id: "PublicVerificationPolicySummary",
    description: "A verification policy as listed: the identifier to name when starting a verification.",
  });

export const ZPolicyIdentifierParams = z.object({
  policyIdentifier: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: "The policy's identifier.", example: "over-18" }),
});
export const ZGetVerificationPolicyRequest = ZPolicyIdentifierParams;
export const ZSuspendVerificationPolicyRequest = ZPolicyIdentifierParams;
export const ZReactivateVerificationPolicyRequest = ZPolicyIdentifierParams;
export const ZListVerificationPoliciesRequest = zListQuery;

// VerificationPolicies_CreateVersion: the whole content again (as on create, without the identifier)
export const ZCreateVerificationPolicyVersionRequest = z
  .strictObject({
    ...ZPolicyIdentifierParams.shape,
    displayName: ZCreateVerificationPolicyRequest.shape.displayName,
    purpose: ZCreateVerificationPolicyRequest.shape.purpose,
    ...rulesShape,
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .nullish()
      .meta({ description: "Why this version exists.", example: "Also asks for the family name" }),
  })
  .superRefine(checkRuleConsistency)
  .superRefine(checkSomeClaimRequested)
  .meta({ id: "CreateVerificationPolicyVersionRequest" });
registerRequestExample(ZCreateVerificationPolicyVersionRequest, ["policyIdentifier"], {
  displayName: "Age over 18",
  purpose: "Age check at checkout",
  credentials: [
    {
      id: "membership",
      credentialTypes: [EXAMPLE_CREDENTIAL_TYPE],
      trustedIssuers: [{ issuerId: EXAMPLE_ISSUER_ID }],
      requiredClaims: [["age_equal_or_over", "18"]],
      optionalClaims: [["family_name"]],
    },
  ],
  reason: "Also asks for the family name",
});
export type TCreateVerificationPolicyVersionRequest = z.infer<typeof ZCreateVerificationPolicyVersionRequest>;

const zPolicyVersionParam = (description: string) =>
  z.coerce.number().int().min(1).max(MAX_POLICY_VERSIONS).meta({ description, example: 1 });

// VerificationPolicies_ActivateVersion
export const ZActivateVerificationPolicyVersionRequest = ZPolicyIdentifierParams.extend({
  version: zPolicyVersionParam("The version to make the active one."),
});

// VerificationPolicies_GetVersion
export const ZGetVerificationPolicyVersionRequest = ZPolicyIdentifierParams.extend({
  version: zPolicyVersionParam("The version to read."),
});
export const ZVerificationPolicyVersionResponse = resourceOf(
  zVerificationPolicyVersion
    .extend({
      displayName: z
        .string()
        .meta({ description: "The version's name shown to people.", example: "Age over 18" }),
      purpose: z.string().nullable().meta({
        description: "The version's default purpose shown to the holder.",
        example: "Age check at checkout",
      }),
      rules: zPolicyRules,
    })
    .meta({
      id: "VerificationPolicyVersionDetail",
      description: "One version of a verification policy, with its content.",
    }),
).meta({ id: "ApiEnvelopeOfVerificationPolicyVersionDetail" });

export const ZVerificationPolicyResponse = resourceOf(zVerificationPolicy).meta({
  id: "ManagementResourceOfPublicVerificationPolicyResponse",
});
export const ZCreateVerificationPolicyResponse = ZVerificationPolicyResponse;
export const ZGetVerificationPolicyResponse = ZVerificationPolicyResponse;
export const ZSuspendVerificationPolicyResponse = ZVerificationPolicyResponse;
export const ZReactivateVerificationPolicyResponse = ZVerificationPolicyResponse;
export const ZListVerificationPoliciesResponse = collectionOf(zVerificationPolicySummary).meta({
  id: "ManagementCollectionOfPublicVerificationPolicyResponse",
});
