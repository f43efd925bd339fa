import { z } from "zod";
import { resourceOf, zListQuery } from "./pagination";

export const zCredentialStatus = z
  .object({
    credentialId: z
      .string()
      .meta({ description: "Credential id.", example: "cred_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    status: z.enum(["issued", "revoked"]).meta({ description: "Credential state.", example: "revoked" }),
    issuerId: z.string().meta({ description: "The issuer that signed the credential." }),
    credentialConfiguration: z.string().meta({ description: "Credential configuration identifier." }),
    issuedAt: z.string().meta({ description: "Issuance time (the credential's `iat`)." }),
    expiresAt: z.string().meta({ description: "Expiry (the credential's `exp`)." }),
    revokedAt: z.string().nullable().meta({ description: "When it was revoked; null while valid." }),
    statusList: z
      .object({
        uri: z.string().meta({ description: "Status list token URL (IETF Token Status List)." }),
        idx: z.int().meta({ description: "The credential's index in the list." }),
      })
      .nullable()
      .meta({ description: "Where relying parties read the status; null when status is not enabled." }),
  })
  .meta({ id: "CredentialStatus" });

export const ZRevokeCredentialRequest = z.object({
  credentialId: z.string().max(64).meta({
    description: "Credential id (from the completed issuance transaction).",
    example: "cred_01jd5x6c3v8w9y0z1a2b3c4d5e",
  }),
});
export const ZCredentialStatusResponse = resourceOf(zCredentialStatus).meta({
  id: "ApiEnvelopeOfCredentialStatusResponse",
});

/** Credentials_Get / Credentials_List: a credential's state as its issuer's tenant reads it (an extension of the contract). */
export const CREDENTIAL_STATES = ["active", "suspended", "revoked", "expired"] as const;
export type CredentialState = (typeof CREDENTIAL_STATES)[number];

const zIsoTime = z.iso.datetime({ offset: true });
const CREDENTIAL_ID = z.string().max(64).meta({
  description: "Credential id (from the completed issuance transaction, or Credentials_List).",
  example: "cred_01jd5x6c3v8w9y0z1a2b3c4d5e",
});

export const zCredential = z
  .object({
    id: z.string().meta({ description: "Credential id.", example: "cred_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    credentialConfiguration: z
      .string()
      .meta({ description: "Credential configuration identifier.", example: "employee-badge" }),
    configurationVersion: z
      .int()
      .meta({ description: "The configuration version (claims schema) it was issued under.", example: 1 }),
    issuerId: z.string().meta({ description: "The issuer that signed the credential." }),
    transactionId: z.string().meta({ description: "The issuance transaction that issued it." }),
    status: z.enum(CREDENTIAL_STATES).meta({
      description:
        "`active` (valid), `suspended` (status list value 2, reversible), `revoked` (value 1, final), or `expired` (past `expiresAt`, derived at read time; a revoked credential stays `revoked`).",
      example: "active",
    }),
    issuedAt: z
      .string()
      .meta({ description: "Issuance time (the credential's `iat`, the start of its UTC day)." }),
    expiresAt: z.string().meta({ description: "Expiry (the credential's `exp`)." }),
    revokedAt: z.string().nullable().meta({ description: "When it was revoked; null unless revoked." }),
    suspendedAt: z.string().nullable().meta({
      description:
        "When its current suspension began; null when not suspended (a revocation of a suspended credential keeps it).",
    }),
    statusList: z
      .object({
        uri: z.string().meta({ description: "Status list token URL (IETF Token Status List)." }),
        idx: z.int().meta({ description: "The credential's index in the list." }),
      })
      .nullable()
      .meta({ description: "Where relying parties read the status; null when status is not enabled." }),
    holderKeyThumbprint: z.string().nullable().meta({
      description:
        "RFC 7638 SHA-256 thumbprint (base64url) of the holder key the credential is bound to (`cnf.jwk`); null without holder binding, or for credentials issued before it was recorded.",
      example: "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs",
    }),
  })
  .meta({ id: "Credential", description: "An issued credential: its metadata and state, never its claims." });

export type TCredential = z.infer<typeof zCredential>;

export const ZGetCredentialRequest = z.object({ credentialId: CREDENTIAL_ID });
export const ZSuspendCredentialRequest = z.object({ credentialId: CREDENTIAL_ID });
export const ZReinstateCredentialRequest = z.object({ credentialId: CREDENTIAL_ID });

export const ZCredentialResponse = resourceOf(zCredential).meta({ id: "ApiEnvelopeOfCredential" });

export const ZListCredentialsRequest = zListQuery.extend({
  status: z.enum(CREDENTIAL_STATES).optional().meta({ description: "Only credentials in this state." }),
  credentialConfiguration: z
    .string()
    .max(100)
    .optional()
    .meta({ description: "Only credentials of this configuration identifier.", example: "employee-badge" }),
  issuerId: z.string().max(64).optional().meta({ description: "Only credentials of this issuer." }),
  transactionId: z
    .string()
    .max(64)
    .optional()
    .meta({ description: "Only the credentials (copies) of this issuance transaction." }),
  externalSubjectReference: z.string().max(200).optional().meta({
    description: "Only credentials whose issuance transaction carries this `externalSubjectReference`.",
  }),
  issuedFrom: zIsoTime
    .optional()
    .meta({ description: "Only credentials issued at or after this time (ISO 8601)." }),
  issuedTo: zIsoTime.optional().meta({ description: "Only credentials issued before this time (ISO 8601)." }),
});
export type TListCredentialsRequest = z.infer<typeof ZListCredentialsRequest>;

export const ZCredentialCollection = z
  .object({
    data: z.array(zCredential).meta({ description: "This page's credentials, newest first." }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: "Cursor of the next (older) page; null on the last page." }),
  })
  .meta({ id: "ApiCollectionOfCredential" });
