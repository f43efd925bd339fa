import { DomainError } from "../shared/errors";
import { protectedProcedure, publicProcedure, router } from "../trpc";
import { assertStaffRole } from "./require-role";
import { clearedSessionCookie, secureCookies, sessionCookie } from "./session-cookie";
import {
  ZMeResponse,
  ZSignInRequest,
  ZSignOutResponse,
  ZStaffSessionResponse,
  ZSwitchEnvironmentRequest,
} from "./staff.schema";
import { signIn, signOut, switchEnvironment } from "./staff-auth";
import { assertStaffCsrf, findStaffSession, toStaffSessionDto } from "./staff-session";

/** Console sign-in and session (tRPC only, no REST): the session travels in the `cp_session` cookie. */
export const staffRouter = router({
  signIn: publicProcedure
    .input(ZSignInRequest)
    .output(ZStaffSessionResponse)
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.rateLimiter.consume(`staff-sign-in:${input.email.toLowerCase()}`);
      const result = await signIn(ctx.db, input.email, input.password);
      if (!result) throw new DomainError("Unauthenticated", "The email address or password is not correct.");
      const found = await findStaffSession(ctx.db, result.token);
      if (!found) throw new DomainError("InternalError", "The new session could not be read back.");
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
});
