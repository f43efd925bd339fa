import { z } from "zod";
import { EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM } from "./examples";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";
import {
  EXAMPLE_REGISTRATION_CERTIFICATE,
  ZUploadVerifierRegistrationCertificateRequest,
} from "./verifier-certificates";

// Relying parties an intermediary tenant acts for (docs/api/relying-party-certificates.md,
// "Intermediaries"). Members follow what a registration certificate (ETSI TS 119 475 V1.1.1) says of its
// subject: `name`, `sub.legal_name`, `sub.id[].identifier`, `country`, `info_uri`, `privacy_policy`,
// `registry_uri`.

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";
const zUri = z.url({ protocol: /^https?$/, error: "Use an http(s) URL." }).max(2048);

export const zRelyingPartyId = z.string().min(1).max(64).meta({
  description: "The relying party's id.",
  example: "rp_01jd5x6c3v8w9y0z1a2b3c4d5e",
});

const zIdentifiers = z
  .array(
    z
      .string()
      .regex(/^\S{1,200}$/, "An identifier has 1 to 200 characters and no spaces.")
      .meta({ example: "VATFI-12345678" }),
  )
  .min(1)
  .max(10)
  .refine((ids) => new Set(ids).size === ids.length, "Name each identifier once.")
  .meta({
    description:
      "The relying party's identifiers as its registration certificates name them in `sub` (ETSI EN 319 412-1 form, e.g. `VATFI-12345678`, `LEIXG-743700EB2QF2J1WRO915`). A registration certificate added for it must name one of them.",
    example: ["VATFI-12345678"],
  });

const fields = {
  name: z.string().trim().min(1).max(200).meta({
    description: "User-friendly name, as the registration certificate's `name` gives it to wallets.",
    example: "Webshop",
  }),
  legalName: z.string().trim().min(1).max(200).nullish().meta({
    description: "Legal name (`sub.legal_name`); null for none.",
    example: "Webshop Holding Company Ltd",
  }),
  identifiers: zIdentifiers,
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullish()
    .meta({ description: "ISO 3166-1 alpha-2 country of establishment (`country`).", example: "FI" }),
  infoUri: zUri.nullish().meta({
    description: "Where users learn about the relying party (`info_uri`).",
    example: "https://webshop.example.com",
  }),
  privacyPolicyUri: zUri.nullish().meta({
    description: "Its privacy policy (`privacy_policy[].policyURI`).",
    example: "https://webshop.example.com/privacy",
  }),
  registryUri: zUri.nullish().meta({
    description: "The registrar's register it is listed in (`registry_uri`).",
    example: "https://registry.example.eu",
  }),
};

export const zRelyingParty = z
  .object({
    id: zRelyingPartyId,
    name: z.string().meta({ example: "Webshop" }),
    legalName: z.string().nullable().meta({ example: "Webshop Holding Company Ltd" }),
    identifiers: z.array(z.string()).meta({ example: ["LEIXG-743700EB2QF2J1WRO915"] }),
    country: z.string().nullable().meta({ example: "FI" }),
    infoUri: z.string().nullable().meta({ example: "https://webshop.example.com" }),
    privacyPolicyUri: z.string().nullable().meta({ example: "https://webshop.example.com/privacy" }),
    registryUri: z.string().nullable().meta({ example: "https://registry.example.eu" }),
    createdAt: z.string().meta({ example: ISO_EXAMPLE }),
    updatedAt: z.string().meta({ example: ISO_EXAMPLE }),
  })
  .meta({
    id: "RelyingParty",
    description:
      "A relying party this tenant acts for as an intermediary: its own identity and (RelyingParties_AddRegistrationCertificate) registration certificates. Policies name it in `relyingPartyId`.",
  });
export type TRelyingParty = z.infer<typeof zRelyingParty>;

export const ZCreateRelyingPartyRequest = z.strictObject(fields).meta({ id: "CreateRelyingPartyRequest" });
export type TCreateRelyingPartyRequest = z.infer<typeof ZCreateRelyingPartyRequest>;
registerRequestExample(ZCreateRelyingPartyRequest, [], {
  name: "Webshop",
  legalName: "Webshop Holding Company Ltd",
  identifiers: ["LEIXG-743700EB2QF2J1WRO915"],
  country: "FI",
  infoUri: "https://webshop.example.com",
});

export const ZRelyingPartyIdParams = z.object({ relyingPartyId: zRelyingPartyId });

/** RelyingParties_Update: JSON merge patch (absent = unchanged, null = cleared). */
export const ZUpdateRelyingPartyRequest = z.strictObject({
  relyingPartyId: zRelyingPartyId,
  name: fields.name.optional(),
  legalName: fields.legalName,
  identifiers: zIdentifiers.optional(),
  country: fields.country,
  infoUri: fields.infoUri,
  privacyPolicyUri: fields.privacyPolicyUri,
  registryUri: fields.registryUri,
});
export type TUpdateRelyingPartyRequest = z.infer<typeof ZUpdateRelyingPartyRequest>;
registerRequestExample(ZUpdateRelyingPartyRequest, ["relyingPartyId"], {
  infoUri: "https://webshop.example.com/about",
});

export const ZRelyingPartyResponse = resourceOf(zRelyingParty).meta({
  id: "ManagementResourceOfRelyingParty",
});
export const ZListRelyingPartiesRequest = zListQuery;
export const ZListRelyingPartiesResponse = collectionOf(zRelyingParty).meta({
  id: "ManagementCollectionOfRelyingParty",
});

/** RelyingParties_AddRegistrationCertificate: the body of VerifierRegistrationCertificates_Add. */
export const ZAddRelyingPartyRegistrationCertificateRequest =
  ZUploadVerifierRegistrationCertificateRequest.extend({ relyingPartyId: zRelyingPartyId }).meta({
    id: "AddRelyingPartyRegistrationCertificateRequest",
  });
export type TAddRelyingPartyRegistrationCertificateRequest = z.infer<
  typeof ZAddRelyingPartyRegistrationCertificateRequest
>;
// The shape only: send one your registrar signed for this relying party, with you as `act.sub`.
registerRequestExample(ZAddRelyingPartyRegistrationCertificateRequest, ["relyingPartyId"], {
  registrationCertificate: EXAMPLE_REGISTRATION_CERTIFICATE,
  trustAnchorPem: EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM,
});
export const ZListRelyingPartyRegistrationCertificatesRequest = zListQuery.extend({
  relyingPartyId: zRelyingPartyId,
});
