import {
  ZCreateTenantAdminRequest,
  ZCreateTenantAdminResponse,
  ZCreateTenantRequest,
  ZCreateTenantResponse,
  ZGetTenantRequest,
  ZListTenantsRequest,
  ZListTenantsResponse,
  ZReactivateTenantRequest,
  ZSuspendTenantRequest,
  ZTenantResponse,
} from "@cred/contracts/tenants";
import { protectedProcedure, router } from "../rpc/trpc";
import {
  createTenantAdmin,
  createTenantWithAdmin,
  getTenant,
  listTenantsPage,
  setTenantSuspended,
} from "./tenants";

/**
 * Platform operations (docs/api/tenants.md): `platform.manage`, which only platform-operator staff and
 * platform API keys made by the operator CLI hold; not tenant-bound, so they take the tenant from the
 * path. `platform: true` writes each one's audit event to the affected tenant's trail (rpc/audited.ts).
 */
const TAGS = ["Tenants"];
const BASE = "/management/tenants";
const PLATFORM = { scopes: ["platform.manage" as const], platform: true };

export const tenantsRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        operationId: "Tenants_Create",
        summary: "Create a tenant (platform operators)",
        description:
          "A new, active tenant. With `adminEmail`, also its first console administrator, whose password the answer holds once (`admin.temporaryPassword`). An e-mail that is a console user already → 409 AlreadyExists, and no tenant is made.",
        tags: TAGS,
        successDescription: "The tenant was created.",
      },
      ...PLATFORM,
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 429],
    })
    .input(ZCreateTenantRequest)
    .output(ZCreateTenantResponse)
    .mutation(async ({ ctx, input }) => ({ data: await createTenantWithAdmin(ctx.db, input) })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BASE,
        operationId: "Tenants_List",
        summary: "List tenants (platform operators)",
        tags: TAGS,
      },
      ...PLATFORM,
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListTenantsRequest)
    .output(ZListTenantsResponse)
    .query(async ({ ctx, input }) => listTenantsPage(ctx.db, input)),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{tenantId}`,
        operationId: "Tenants_Get",
        summary: "Get a tenant (platform operators)",
        tags: TAGS,
      },
      ...PLATFORM,
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetTenantRequest)
    .output(ZTenantResponse)
    .query(async ({ ctx, input }) => ({ data: await getTenant(ctx.db, input.tenantId) })),

  suspend: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{tenantId}/suspend`,
        operationId: "Tenants_Suspend",
        summary: "Suspend a tenant (platform operators)",
        description:
          "active → suspended: from the next request, every operation called with the tenant's API keys or by its console users answers 403 TenantSuspended (other API processes: within 2 seconds), and its issuers' and verifiers' wallet endpoints refuse wallets. Nothing is deleted. Suspending a suspended tenant, or the tenant the caller acts in → 409 InvalidState.",
        tags: TAGS,
      },
      ...PLATFORM,
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZSuspendTenantRequest)
    .output(ZTenantResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await setTenantSuspended(ctx.db, ctx.deps.caches, {
        tenantId: input.tenantId,
        suspended: true,
        callerTenantId: ctx.principal.tenantId,
      }),
    })),

  reactivate: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{tenantId}/reactivate`,
        operationId: "Tenants_Reactivate",
        summary: "Reactivate a suspended tenant (platform operators)",
        description:
          "suspended → active: the tenant's API keys and console users are served again. Reactivating an active tenant → 409 InvalidState.",
        tags: TAGS,
      },
      ...PLATFORM,
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZReactivateTenantRequest)
    .output(ZTenantResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await setTenantSuspended(ctx.db, ctx.deps.caches, {
        tenantId: input.tenantId,
        suspended: false,
        callerTenantId: ctx.principal.tenantId,
      }),
    })),

  createAdmin: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{tenantId}/admins`,
        operationId: "Tenants_CreateAdmin",
        summary: "Create a console administrator of a tenant (platform operators)",
        description:
          "A console user with the admin role whose home is the tenant, and their password, returned once. An e-mail that is a console user already → 409 AlreadyExists (add a tenant to an existing user with `pnpm cli staff grant`).",
        tags: TAGS,
        successDescription: "The administrator was created.",
      },
      ...PLATFORM,
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZCreateTenantAdminRequest)
    .output(ZCreateTenantAdminResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createTenantAdmin(ctx.db, input.tenantId, input.email),
    })),
});
