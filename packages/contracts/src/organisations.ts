import { z } from "zod";
import { isCountryCode } from "./countries";
import { zOrganisationReference } from "./organisation-reference";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";
import { zResourceFields } from "./resource-fields";

export { zOrganisationReference };

const zIdentifier = z.strictObject({
  scheme: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,32}$/)
    .meta({ description: "Identifier scheme, e.g. LEI, VAT, EUID.", example: "LEI" }),
  value: z
    .string()
    .trim()
    .min(1)
    .max(128)
    .meta({ description: "The identifier in that scheme.", example: "5493001KJTIIGC8Y1R12" }),
});

export const zOrganisation = z
  .object({
    reference: zOrganisationReference,
    displayName: z.string().meta({ description: "Name shown to people.", example: "Acme Bank" }),
    legalName: z
      .string()
      .nullable()
      .meta({ description: "Registered legal name.", example: "Acme Bank N.V." }),
    country: z
      .string()
      .nullable()
      .meta({ description: "ISO 3166-1 alpha-2 country of registration.", example: "NL" }),
    identifiers: z.array(zIdentifier).meta({ description: "Registry identifiers (LEI, VAT, …)." }),
    ...zResourceFields,
  })
  .meta({ id: "Organisation", description: "An organisation that operates one or more issuers." });

export const ZCreateOrganisationRequest = z.strictObject({
  reference: zOrganisationReference,
  displayName: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .meta({ description: "Name shown to people.", example: "Acme Bank" }),
  legalName: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .nullish()
    .meta({ description: "Registered legal name.", example: "Acme Bank N.V." }),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, { message: "Use an ISO 3166-1 alpha-2 code, e.g. NL.", abort: true })
    .refine(isCountryCode, "Not an assigned ISO 3166-1 alpha-2 country code.")
    .nullish()
    .meta({
      description:
        "ISO 3166-1 alpha-2 country of registration: an assigned code (or XK, Kosovo); reserved codes such as EU or ZZ are refused.",
      example: "NL",
    }),
  identifiers: z
    .array(zIdentifier)
    .max(20)
    .default([])
    .meta({ description: "Registry identifiers (LEI, VAT, …)." }),
});
registerRequestExample(ZCreateOrganisationRequest, [], {
  reference: "acme-bank",
  displayName: "Acme Bank",
  legalName: "Acme Bank N.V.",
  country: "NL",
  identifiers: [{ scheme: "LEI", value: "5493001KJTIIGC8Y1R12" }],
});
export type TCreateOrganisationRequest = z.infer<typeof ZCreateOrganisationRequest>;

const zOrganisationReferenceParam = z
  .string()
  .max(64)
  .meta({ description: "The organisation's reference.", example: "acme-bank" });

export const ZGetOrganisationRequest = z.object({ organisationReference: zOrganisationReferenceParam });

// Organisations_Update (JSON merge patch: absent = unchanged, null = cleared)
/** Fields of the organisation resource that a PATCH may not set (400 ReadOnlyField). */
export const ORGANISATION_READ_ONLY_FIELDS = ["reference", "environment", "createdAt", "updatedAt"] as const;

const createFields = ZCreateOrganisationRequest.shape;

export const ZUpdateOrganisationRequest = z.strictObject({
  organisationReference: zOrganisationReferenceParam,
  displayName: createFields.displayName.optional(),
  legalName: createFields.legalName.meta({ description: "New registered legal name; null clears it." }),
  country: createFields.country.meta({
    description: "New ISO 3166-1 alpha-2 country of registration; null clears it.",
  }),
  identifiers: z
    .array(zIdentifier)
    .max(20)
    .nullish()
    .meta({ description: "Replaces the whole identifier list; null or [] clears it." }),
});
registerRequestExample(ZUpdateOrganisationRequest, ["organisationReference"], {
  displayName: "Acme Bank Europe",
  country: "BE",
});
export type TUpdateOrganisationRequest = z.infer<typeof ZUpdateOrganisationRequest>;
export const ZListOrganisationsRequest = zListQuery;

export const ZOrganisationResponse = resourceOf(zOrganisation).meta({
  id: "ManagementResourceOfOrganisation",
});
export const ZOrganisationCollection = collectionOf(zOrganisation).meta({
  id: "ManagementCollectionOfOrganisation",
});
