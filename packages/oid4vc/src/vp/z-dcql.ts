import { z } from "zod";

/** `[A-Za-z0-9_-]+`: DCQL credential query ids and claim ids (OpenID4VP §6.1, §6.3). */
export const DCQL_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

export const zDcqlId = z.string().regex(DCQL_ID_PATTERN, "must match [A-Za-z0-9_-]+");

export const zClaimsPath = z
  .array(z.union([z.string(), z.number().int().nonnegative(), z.null()]))
  .min(1, "claims path pointer must not be empty");

export const zDcqlClaimsQuery = z.looseObject({
  id: zDcqlId.optional(),
  path: zClaimsPath,
  values: z
    .array(z.union([z.string(), z.number().int(), z.boolean()]))
    .min(1)
    .optional(),
});

export const zDcqlTrustedAuthority = z.looseObject({
  type: z.string().min(1),
  values: z.array(z.string().min(1)).min(1),
});

export const zDcqlCredentialQuery = z
  .looseObject({
    id: zDcqlId,
    format: z.string().min(1),
    multiple: z.boolean().optional(),
    meta: z.looseObject({ vct_values: z.array(z.string().min(1)).min(1).optional() }),
    trusted_authorities: z.array(zDcqlTrustedAuthority).min(1).optional(),
    require_cryptographic_holder_binding: z.boolean().optional(),
    claims: z.array(zDcqlClaimsQuery).min(1).optional(),
    claim_sets: z.array(z.array(zDcqlId).min(1)).min(1).optional(),
  })
  .superRefine((query, ctx) => {
    if (query.format === "dc+sd-jwt" && !query.meta.vct_values) {
      ctx.addIssue({ code: "custom", path: ["meta", "vct_values"], message: "required for dc+sd-jwt" });
    }
    if (query.claim_sets && !query.claims) {
      ctx.addIssue({ code: "custom", path: ["claim_sets"], message: "claim_sets requires claims" });
    }
    const claimIds = new Set<string>();
    for (const [i, claim] of (query.claims ?? []).entries()) {
      if (query.claim_sets && claim.id === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["claims", i, "id"],
          message: "required when claim_sets is present",
        });
      }
      if (claim.id !== undefined) {
        if (claimIds.has(claim.id)) {
          ctx.addIssue({
            code: "custom",
            path: ["claims", i, "id"],
            message: `duplicate claim id "${claim.id}"`,
          });
        }
        claimIds.add(claim.id);
      }
    }
    for (const [i, set] of (query.claim_sets ?? []).entries()) {
      for (const id of set) {
        if (!claimIds.has(id)) {
          ctx.addIssue({ code: "custom", path: ["claim_sets", i], message: `unknown claim id "${id}"` });
        }
      }
    }
  });

export const zDcqlCredentialSetQuery = z.looseObject({
  options: z.array(z.array(zDcqlId).min(1)).min(1),
  required: z.boolean().optional(),
});

/** A DCQL query (OpenID4VP §6). Unknown properties are kept and ignored, as §6 requires. */
export const zDcqlQuery = z
  .looseObject({
    credentials: z.array(zDcqlCredentialQuery).min(1),
    credential_sets: z.array(zDcqlCredentialSetQuery).min(1).optional(),
  })
  .superRefine((query, ctx) => {
    const ids = new Set<string>();
    for (const [i, credential] of query.credentials.entries()) {
      if (ids.has(credential.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["credentials", i, "id"],
          message: `duplicate id "${credential.id}"`,
        });
      }
      ids.add(credential.id);
    }
    for (const [i, set] of (query.credential_sets ?? []).entries()) {
      for (const option of set.options) {
        for (const id of option) {
          if (!ids.has(id)) {
            ctx.addIssue({
              code: "custom",
              path: ["credential_sets", i, "options"],
              message: `unknown id "${id}"`,
            });
          }
        }
      }
    }
  });

export type DcqlClaimsQuery = z.infer<typeof zDcqlClaimsQuery>;
export type DcqlTrustedAuthority = z.infer<typeof zDcqlTrustedAuthority>;
export type DcqlCredentialQuery = z.infer<typeof zDcqlCredentialQuery>;
export type DcqlCredentialSetQuery = z.infer<typeof zDcqlCredentialSetQuery>;
export type DcqlQuery = z.infer<typeof zDcqlQuery>;
