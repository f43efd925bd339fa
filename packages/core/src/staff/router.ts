import {
  ZMeResponse,
  ZSignInRequest,
  ZSignOutResponse,
  ZStaffSessionResponse,
  ZStaffTenantsResponse,
  ZSwitchEnvironmentRequest,
  ZSwitchTenantRequest,
} from "@cred/contracts/staff";
import { assertStaffCsrf, findStaffSession } from "../rpc/staff-session";
import { protectedProcedure, publicProcedure, router } from "../rpc/trpc";
import { DomainError, notFound } from "../shared/errors";
import { describeWait } from "../shared/sign-in-throttle";
import { assertStaffRole } from "./require-role";
import { clearedSessionCookie, secureCookies, sessionCookie } from "./session-cookie";
import { signIn, signOut, switchEnvironment, switchTenant } from "./staff-auth";
import { listStaffTenants, toStaffSessionDto } from "./staff-session-dto";

/** Console sign-in and session (tRPC only, no REST): the session travels in the `cp_session` cookie. */
export const staffRouter = router({
  signIn: publicProcedure
    .input(ZSignInRequest)
    .output(ZStaffSessionResponse)
    .mutation(async ({ ctx, input }) => {
      // Counted per account and client address before the password is checked; a client past its free
      // failures waits, with growing delays, while others (the account's owner among them) sign in.
      const attempt = await ctx.deps.signInThrottle.begin(input.email, ctx.clientAddress ?? "unknown");
      const result = await signIn(ctx.db, input.email, input.password);
      if (!result) {
        const wait = attempt.waitIfFailed;
        throw new DomainError(
          "Unauthenticated",
          wait
            ? `The email address or password is not correct. After several failures, the next attempt from your address must wait ${describeWait(wait)}.`
            : "The email address or password is not correct.",
          undefined,
          wait ? { "Retry-After": String(wait) } : undefined,
        );
      }
      await attempt.succeeded();
      const found = await findStaffSession(ctx.db, result.token);
      if (!found) throw new DomainError("InternalError", "The new session could not be read back.");
      if (found.tenant?.suspendedAt) {
        // The home tenant is suspended (docs/api/tenants.md): say so here rather than on every page.
        await signOut(ctx.db, result.token);
        throw new DomainError(
          "TenantSuspended",
          `The tenant ${found.tenant.name} is suspended: its console users are refused until a platform operator reactivates it.`,
        );
      }
      ctx.response.headers["Set-Cookie"] = sessionCookie(result.token, secureCookies(ctx.deps.config));
      return { data: toStaffSessionDto(found) };
    }),

  me: publicProcedure.output(ZMeResponse).query(async ({ ctx }) => {
    const found = ctx.staffSessionToken ? await findStaffSession(ctx.db, ctx.staffSessionToken) : null;
    return { data: found ? toStaffSessionDto(found) : null };
  }),

  signOut: publicProcedure.output(ZSignOutResponse).mutation(async ({ ctx }) => {
    const token = ctx.staffSessionToken;
    if (token && (await findStaffSession(ctx.db, token))) {
      await assertStaffCsrf(ctx.db, token, ctx.csrfToken);
      await signOut(ctx.db, token);
    }
    ctx.response.headers["Set-Cookie"] = clearedSessionCookie(secureCookies(ctx.deps.config));
    return { data: { signedOut: true as const } };
  }),

  switchEnvironment: protectedProcedure
    .input(ZSwitchEnvironmentRequest)
    .output(ZStaffSessionResponse)
    .mutation(async ({ ctx, input }) => {
      assertStaffRole(ctx.principal, ["admin", "operator", "viewer"]);
      const token = ctx.staffSessionToken!;
      await switchEnvironment(ctx.db, token, input.environment);
      const found = await findStaffSession(ctx.db, token);
      if (!found) throw new DomainError("Unauthenticated", "The console session has expired; sign in again.");
      return { data: toStaffSessionDto(found) };
    }),

  /** The tenants the signed-in user can switch to (home tenant + memberships), with their role in each. */
  tenants: protectedProcedure.output(ZStaffTenantsResponse).query(async ({ ctx }) => {
    assertStaffRole(ctx.principal, ["admin", "operator", "viewer"]);
    const found = await findStaffSession(ctx.db, ctx.staffSessionToken!);
    if (!found) throw new DomainError("Unauthenticated", "The console session has expired; sign in again.");
    return { data: await listStaffTenants(ctx.db, found.user) };
  }),

  /**
   * Moves the session to another tenant the user belongs to (CSRF-checked like every staff mutation).
   * A tenant the user has no membership in is 404 NotFound, so tenant ids are not confirmed to exist.
   */
  switchTenant: protectedProcedure
    .input(ZSwitchTenantRequest)
    .output(ZStaffSessionResponse)
    .mutation(async ({ ctx, input }) => {
      assertStaffRole(ctx.principal, ["admin", "operator", "viewer"]);
      const token = ctx.staffSessionToken!;
      const current = await findStaffSession(ctx.db, token);
      if (!current)
        throw new DomainError("Unauthenticated", "The console session has expired; sign in again.");
      if (!(await switchTenant(ctx.db, token, current.user, input.tenantId))) throw notFound("Tenant");
      const found = await findStaffSession(ctx.db, token);
      if (!found) throw new DomainError("Unauthenticated", "The console session has expired; sign in again.");
      return { data: toStaffSessionDto(found) };
    }),
});
