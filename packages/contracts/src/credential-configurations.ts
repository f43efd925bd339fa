import { z } from "zod";
import { EXAMPLE_CREDENTIAL_TYPE, EXAMPLE_ISSUER_ID } from "./examples";
import { zIssuerId, zLocale } from "./issuers";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";
import { zResourceFields } from "./resource-fields";

/** Platform limits (spec §8): the only format and signing algorithm the service issues. */
export const SUPPORTED_FORMAT = "dc+sd-jwt";
export const SUPPORTED_SIGNING_ALGORITHM = "ES256";

export const CLAIM_TYPES = ["string", "number", "integer", "boolean", "date", "object", "array"] as const;
export type ClaimType = (typeof CLAIM_TYPES)[number];

export const MAX_CLAIMS = 200;
export const MAX_CLAIM_DEPTH = 8;

const zClaimPathSegment = z
  .string()
  .min(1)
  .max(100)
  .meta({ description: "One claim name along the path.", example: "address" });

const zClaimDisplay = z
  .strictObject({
    locale: zLocale,
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .meta({ description: "Label wallets show for the claim in this locale.", example: "Date of birth" }),
  })
  .meta({ id: "ClaimDisplay", description: "Wallet-facing label of a claim in one locale." });

const zEnumValue = z.union([z.string(), z.number(), z.boolean()]);

export const zClaimConstraints = z
  .strictObject({
    enum: z
      .array(zEnumValue)
      .min(1)
      .max(500)
      .optional()
      .meta({ description: "Allowed values; each of the claim's type.", example: ["NL", "BE", "DE"] }),
    pattern: z.string().min(1).max(500).optional().meta({
      description: "ECMAScript regular expression (Unicode mode) a string or date value must match.",
      example: "^[A-Z]{2}$",
    }),
    minimum: z
      .number()
      .optional()
      .meta({ description: "Smallest allowed value (number and integer claims).", example: 0 }),
    maximum: z
      .number()
      .optional()
      .meta({ description: "Largest allowed value (number and integer claims).", example: 150 }),
    maxLength: z
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .meta({ description: "Longest allowed value in characters (string and date claims).", example: 100 }),
  })
  .meta({ id: "ClaimConstraints", description: "Checks a claim value must pass at issuance." });

export const zClaimDefinition = z
  .strictObject({
    path: z
      .array(zClaimPathSegment)
      .min(1)
      .max(MAX_CLAIM_DEPTH)
      .meta({
        description: "Claim path from the credential's top level, one name per level.",
        example: ["address", "country"],
      }),
    type: z.enum(CLAIM_TYPES).meta({
      description: "Value type; `date` is an ISO 8601 full date (YYYY-MM-DD) string.",
      example: "string",
    }),
    required: z
      .boolean()
      .default(false)
      .meta({ description: "Whether issuance must supply this claim.", example: true }),
    selectivelyDisclosable: z
      .boolean()
      .default(true)
      .meta({ description: "Whether the holder may disclose this claim selectively.", example: true }),
    display: z
      .array(zClaimDisplay)
      .max(50)
      .optional()
      .meta({ description: "Labels per locale for wallets." }),
    constraints: zClaimConstraints.optional(),
  })
  .meta({ id: "ClaimDefinition", description: "One claim of the credential's schema." });
export type TClaimDefinition = z.infer<typeof zClaimDefinition>;

const zConfigurationIdentifier = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,100}$/, "Use 1–100 letters, digits, '.', '_' or '-'.")
  .meta({
    description: "Caller-chosen identifier, unique per tenant and environment; callers name it at issuance.",
    example: "membership-card",
  });

const zDisplayName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .meta({ description: "Name of the credential shown to people.", example: "Membership card" });

const zSchemaId = z.string().trim().min(1).max(500).meta({
  description: "Identifier of the schema this configuration implements (caller-defined, e.g. a URI).",
  example: "https://schemas.acme.example/membership/v1",
});

const zCredentialType = z
  .string()
  .min(1)
  .max(500)
  .regex(/^\S+$/, "The credential type may not contain whitespace.")
  .meta({
    description: "The SD-JWT VC `vct`. Defaults to `<credentialIssuer>/credentials/<identifier>`.",
    example: "https://credentials.example/issuers/iss_01jd5x6c3v8w9y0z1a2b3c4d5e/credentials/membership-card",
  });

const zLifetimeDays = z.int().min(1).max(36_500).meta({
  description: "Validity of issued credentials in days (int32, 1–36500).",
  example: 365,
  format: "int32",
});

/** At most this many versions per configuration: each is listed with it. */
export const MAX_CONFIGURATION_VERSIONS = 100;

const zClaims = z.array(zClaimDefinition).max(MAX_CLAIMS);

const zVersionReason = z.string().trim().min(1).max(500);

/** The claims of the examples: what the issuance examples supply and the verification policy example asks. */
const EXAMPLE_CLAIMS = [
  {
    path: ["given_name"],
    type: "string",
    required: true,
    display: [{ locale: "en-GB", name: "Given name" }],
  },
  {
    path: ["family_name"],
    type: "string",
    required: true,
    display: [{ locale: "en-GB", name: "Family name" }],
  },
  { path: ["birthdate"], type: "date", display: [{ locale: "en-GB", name: "Date of birth" }] },
  {
    path: ["membership_number"],
    type: "string",
    required: true,
    selectivelyDisclosable: false,
    constraints: { pattern: "^[0-9]{8}$" },
  },
  { path: ["age_equal_or_over"], type: "object" },
  { path: ["age_equal_or_over", "18"], type: "boolean" },
] satisfies z.input<typeof zClaimDefinition>[];

// CredentialConfigurations_Create
export const ZCreateCredentialConfigurationRequest = z.strictObject({
  identifier: zConfigurationIdentifier,
  displayName: zDisplayName,
  issuerId: zIssuerId.meta({ description: "The issuer that issues credentials of this configuration." }),
  schemaId: zSchemaId,
  credentialType: zCredentialType.nullish().meta({
    description: "The SD-JWT VC `vct`; defaults to `<credentialIssuer>/credentials/<identifier>`.",
  }),
  claims: zClaims
    .nullish()
    .meta({ description: "The claims schema; unrecognised claims are refused at issuance." }),
  defaultLifetimeDays: zLifetimeDays.optional(),
  format: z.string().max(100).nullish().meta({
    description: "Credential format; only `dc+sd-jwt` (platform limit).",
    example: SUPPORTED_FORMAT,
  }),
  signingAlgorithm: z.string().max(100).nullish().meta({
    description: "Signing algorithm; only `ES256` (platform limit).",
    example: SUPPORTED_SIGNING_ALGORITHM,
  }),
  holderBindingRequired: z
    .boolean()
    .optional()
    .meta({ description: "Bind credentials to the holder's key (`cnf`). Default true.", example: true }),
  statusEnabled: z.boolean().optional().meta({
    description: "Give credentials a status list entry so they can be revoked. Default true.",
    example: true,
  }),
  pinTypeMetadata: z.boolean().optional().meta({
    description:
      "Extension: fix the Type Metadata served at the default `credentialType` now, and put its `vct#integrity` into every credential. Later versions may change claim types and constraints but not the claims the document describes (409 `TypeMetadataPinned`). Only with the default `credentialType`. Default false.",
    example: false,
  }),
  reason: zVersionReason
    .nullish()
    .meta({ description: "Why this version exists; recorded on version 1.", example: "Initial version" }),
});
registerRequestExample(ZCreateCredentialConfigurationRequest, [], {
  identifier: "membership-card",
  displayName: "Membership card",
  issuerId: EXAMPLE_ISSUER_ID,
  schemaId: "https://schemas.acme.example/membership/v1",
  credentialType: EXAMPLE_CREDENTIAL_TYPE,
  claims: EXAMPLE_CLAIMS,
  defaultLifetimeDays: 365,
  reason: "Initial version",
});
export type TCreateCredentialConfigurationRequest = z.infer<typeof ZCreateCredentialConfigurationRequest>;

export const zCredentialConfigurationVersion = z
  .object({
    version: z.int().meta({ description: "Version number, from 1.", example: 1 }),
    status: z
      .enum(["active", "superseded"])
      .meta({ description: "`active` for the version in use.", example: "active" }),
    reason: z
      .string()
      .nullable()
      .meta({ description: "Why the version exists.", example: "Initial version" }),
    createdAt: z
      .string()
      .meta({ description: "Creation time (ISO 8601).", example: "2026-08-30T12:00:00.000Z" }),
    activatedAt: z.string().nullable().meta({
      description: "When the version last became the active one (ISO 8601).",
      example: "2026-08-30T12:00:00.000Z",
    }),
  })
  .meta({ id: "CredentialConfigurationVersion", description: "One version of a configuration's claims." });

export const zCredentialConfiguration = z
  .object({
    id: z
      .string()
      .meta({ description: "Identifier of the configuration.", example: "ccf_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    identifier: zConfigurationIdentifier,
    displayName: zDisplayName,
    issuerId: zIssuerId,
    schemaId: zSchemaId,
    credentialType: zCredentialType,
    claims: z.array(zClaimDefinition).meta({ description: "Claims of the active version." }),
    defaultLifetimeDays: zLifetimeDays,
    format: z
      .literal(SUPPORTED_FORMAT)
      .meta({ description: "Credential format.", example: SUPPORTED_FORMAT }),
    signingAlgorithm: z
      .literal(SUPPORTED_SIGNING_ALGORITHM)
      .meta({ description: "Signing algorithm.", example: SUPPORTED_SIGNING_ALGORITHM }),
    holderBindingRequired: z
      .boolean()
      .meta({ description: "Credentials are bound to the holder's key.", example: true }),
    statusEnabled: z.boolean().meta({ description: "Credentials carry a status list entry.", example: true }),
    typeMetadataIntegrity: z.string().nullable().meta({
      description:
        "Extension: the `vct#integrity` every credential carries (SRI of the pinned Type Metadata document); null when the configuration's Type Metadata is not pinned.",
      example: null,
    }),
    activeVersion: z.int().meta({ description: "The version in use.", example: 1 }),
    versions: z.array(zCredentialConfigurationVersion).meta({ description: "Every version, oldest first." }),
    ...zResourceFields,
  })
  .meta({
    id: "PublicCredentialConfigurationResponse",
    description: "What an issuer issues: credential type, claims schema and issuance settings.",
  });
export type TCredentialConfiguration = z.infer<typeof zCredentialConfiguration>;

export const ZCredentialConfigurationResponse = resourceOf(zCredentialConfiguration).meta({
  id: "ManagementResourceOfPublicCredentialConfigurationResponse",
});
export const ZCreateCredentialConfigurationResponse = ZCredentialConfigurationResponse;

const zConfigurationIdentifierParam = zConfigurationIdentifier.meta({
  description: "The configuration's identifier (the name callers use at issuance).",
});
// Not strict: a GET's input also carries the query's `api-version`.
const ZConfigurationIdentifierParams = z.object({ configurationIdentifier: zConfigurationIdentifierParam });

// CredentialConfigurations_Get
export const ZGetCredentialConfigurationRequest = ZConfigurationIdentifierParams;

// CredentialConfigurations_CreateVersion
export const ZCreateCredentialConfigurationVersionRequest = z.strictObject({
  configurationIdentifier: zConfigurationIdentifierParam,
  claims: zClaims.meta({
    description:
      "The new version's claims schema, which replaces the active one's for transactions created from now on.",
  }),
  reason: zVersionReason
    .nullish()
    .meta({ description: "Why this version exists.", example: "Adds the membership level" }),
});
registerRequestExample(ZCreateCredentialConfigurationVersionRequest, ["configurationIdentifier"], {
  claims: [
    ...EXAMPLE_CLAIMS,
    { path: ["membership_level"], type: "string", constraints: { enum: ["standard", "gold"] } },
  ],
  reason: "Adds the membership level",
});
export type TCreateCredentialConfigurationVersionRequest = z.infer<
  typeof ZCreateCredentialConfigurationVersionRequest
>;

const zVersionParam = (description: string) =>
  z.coerce.number().int().min(1).max(MAX_CONFIGURATION_VERSIONS).meta({ description, example: 1 });

// CredentialConfigurations_ActivateVersion
export const ZActivateCredentialConfigurationVersionRequest = ZConfigurationIdentifierParams.extend({
  version: zVersionParam("The version to make the active one."),
});

// CredentialConfigurations_GetVersion
export const ZGetCredentialConfigurationVersionRequest = ZConfigurationIdentifierParams.extend({
  version: zVersionParam("The version to read."),
});
export const ZCredentialConfigurationVersionResponse = resourceOf(
  zCredentialConfigurationVersion
    .extend({
      claims: z.array(zClaimDefinition).meta({ description: "The version's claims schema." }),
    })
    .meta({
      id: "CredentialConfigurationVersionDetail",
      description: "One version of a configuration, with its claims.",
    }),
).meta({ id: "ApiEnvelopeOfCredentialConfigurationVersionDetail" });

// CredentialConfigurations_List
export const ZListCredentialConfigurationsRequest = zListQuery.extend({
  issuerId: z.string().max(64).optional().meta({
    description: "Only configurations this issuer may issue.",
    example: "iss_01jd5x6c3v8w9y0z1a2b3c4d5e",
  }),
});
export type TListCredentialConfigurationsRequest = z.infer<typeof ZListCredentialConfigurationsRequest>;
export const ZListCredentialConfigurationsResponse = collectionOf(zCredentialConfiguration).meta({
  id: "ManagementCollectionOfPublicCredentialConfigurationResponse",
});
