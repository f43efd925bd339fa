import { z } from "zod";
import { resourceOf } from "./pagination";

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
