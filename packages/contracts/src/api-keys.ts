import { z } from "zod";
import { ENVIRONMENTS, PLATFORM_SCOPE, SCOPES, STAFF_SCOPE } from "./scopes";

export const zApiKey = z.object({
  id: z.string().meta({ example: "key_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
  name: z.string(),
  prefix: z.string().meta({ description: "Public part of the key, shown to tell keys apart." }),
  environment: z.enum(ENVIRONMENTS),
  // A platform key (made by the operator CLI) holds platform.manage; no request can grant it.
  scopes: z.array(z.enum([...SCOPES, STAFF_SCOPE, PLATFORM_SCOPE])),
  issuerId: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
  status: z.enum(["active", "revoked", "expired"]),
});

export const ZCreateApiKeyRequest = z.strictObject({
  name: z.string().trim().min(1).max(100),
  // staff.manage: production keys without an issuer only (docs/api/staff-members.md).
  scopes: z.array(z.enum([...SCOPES, STAFF_SCOPE])).min(1),
  issuerId: z.string().max(64).nullish(),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
});
export type TCreateApiKeyRequest = z.infer<typeof ZCreateApiKeyRequest>;

export const ZCreateApiKeyResponse = z.object({
  data: zApiKey.extend({ key: z.string().meta({ description: "The secret key. Shown once." }) }),
});
