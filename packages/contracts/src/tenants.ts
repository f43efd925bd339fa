import { z } from "zod";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";

/** Platform operations (docs/api/tenants.md): tenants and their first administrator. */

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";

export const zTenantId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The tenant's id.", example: "ten_01jd5x6c3v8w9y0z1a2b3c4d5e" });

export const zTenant = z
  .object({
    id: zTenantId,
    name: z.string().meta({ description: "Name shown to operators.", example: "Acme Bank" }),
    status: z
      .enum(["active", "suspended"])
      .meta({ description: "suspended: its API keys and staff are refused (403 TenantSuspended)." }),
    suspendedAt: z
      .string()
      .nullable()
      .meta({ description: "When it was suspended (ISO 8601); null while active.", example: null }),
    createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
  })
  .meta({ id: "Tenant", description: "A tenant of the platform: the partition all its resources live in." });
export type TTenant = z.infer<typeof zTenant>;

const zAdminEmail = z
  .email()
  .max(254)
  .meta({ description: "Sign-in e-mail of the administrator.", example: "admin@acme.example" });

export const zTenantAdmin = z
  .object({
    email: z.string().meta({ example: "admin@acme.example" }),
    role: z.literal("admin"),
    temporaryPassword: z.string().meta({
      description:
        "The administrator's console password, shown once: hand it over out of band; the holder changes it by `pnpm cli staff reset-password` or keeps it.",
    }),
  })
  .meta({ id: "TenantAdmin", description: "A tenant's console administrator, with the one-time password." });

export const ZCreateTenantRequest = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .meta({ description: "Name shown to operators.", example: "Acme Bank" }),
  adminEmail: zAdminEmail.optional().meta({
    description: "When given, also creates the tenant's first console administrator (Tenants_CreateAdmin).",
  }),
});
registerRequestExample(ZCreateTenantRequest, [], { name: "Acme Bank", adminEmail: "admin@acme.example" });

export const ZTenantIdParams = z.object({ tenantId: zTenantId });
export const ZGetTenantRequest = ZTenantIdParams;
export const ZSuspendTenantRequest = ZTenantIdParams;
export const ZReactivateTenantRequest = ZTenantIdParams;
export const ZListTenantsRequest = zListQuery;

export const ZCreateTenantAdminRequest = z.strictObject({ tenantId: zTenantId, email: zAdminEmail });
registerRequestExample(ZCreateTenantAdminRequest, ["tenantId"], { email: "second-admin@acme.example" });

export const ZTenantResponse = resourceOf(zTenant);
export const ZCreateTenantResponse = resourceOf(
  zTenant.extend({
    admin: zTenantAdmin
      .nullable()
      .meta({ description: "The first administrator when `adminEmail` was given; null otherwise." }),
  }),
);
export const ZCreateTenantAdminResponse = resourceOf(zTenantAdmin);
export const ZListTenantsResponse = collectionOf(zTenant).meta({ id: "CollectionOfTenant" });
