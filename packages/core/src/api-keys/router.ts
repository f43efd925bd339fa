import { ZCreateApiKeyRequest, ZCreateApiKeyResponse, zApiKey } from "@cred/contracts/api-keys";
import { z } from "zod";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { assertStaffRole } from "../staff";
import { createApiKey, listApiKeys, revokeApiKey } from "./api-keys";

/** Console-only (tRPC, no REST): an admin manages the API keys of the environment the session is in. */
const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  assertStaffRole(ctx.principal, ["admin"]);
  return next();
});

export const apiKeysRouter = router({
  create: adminProcedure
    .input(ZCreateApiKeyRequest)
    .output(ZCreateApiKeyResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createApiKey(ctx.db, scopeOf(ctx), {
        name: input.name,
        scopes: input.scopes,
        issuerId: input.issuerId ?? null,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      }),
    })),

  list: adminProcedure
    .output(z.object({ data: z.array(zApiKey) }))
    .query(async ({ ctx }) => ({ data: await listApiKeys(ctx.db, scopeOf(ctx)) })),

  revoke: adminProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(z.object({ data: zApiKey }))
    .mutation(async ({ ctx, input }) => ({
      data: await revokeApiKey(ctx.db, ctx.deps.caches, scopeOf(ctx), input.id),
    })),
});
