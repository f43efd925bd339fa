import "@cred/contracts/zod-messages";
import "../shared/contract-checks";
import type { Scope } from "@cred/contracts/scopes";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { RequestContext } from "../shared/context";
import { toErrorEnvelope } from "../shared/error-shape";
import { DomainError } from "../shared/errors";
import { authenticate } from "./authenticate";
import { assertStaffCsrf } from "./staff-session";

export interface OperationMeta extends OpenApiMeta {
  /** The caller needs one of these scopes. */
  scopes?: Scope[];
  /** HTTP status on success (defaults to 200). */
  successStatus?: number;
  /** Error statuses the operation documents (spec §4). */
  errorStatuses?: number[];
  /** Accepts the Idempotency-Key header. */
  idempotent?: boolean;
}

const t = initTRPC
  .context<RequestContext>()
  .meta<OperationMeta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const { status, envelope, headers } = toErrorEnvelope(error, ctx?.requestId ?? "unknown");
      // Keep tRPC's own keys for the console client, but never a stack or internal message.
      return {
        message: envelope.error.message,
        code: shape.code,
        data: { httpStatus: status, envelope, headers: headers ?? {} },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;

/** Authenticated, throttled, scope-checked procedure: the base of every spec operation. */
export const protectedProcedure = t.procedure.use(async ({ ctx, meta, type, next }) => {
  const principal = await authenticate(ctx);
  // Console mutations: the one CSRF check for staff principals (API keys are not ambient credentials).
  if (principal.kind === "staff" && type === "mutation") {
    await assertStaffCsrf(ctx.db, ctx.staffSessionToken ?? "", ctx.csrfToken);
  }
  Object.assign(ctx.response.headers, await ctx.deps.rateLimiter.consume(principal.id));
  const needed = meta?.scopes ?? [];
  if (needed.length > 0 && !needed.some((scope) => principal.scopes.has(scope))) {
    throw new DomainError(
      "MissingScope",
      `This operation needs the scope ${needed.map((s) => `'${s}'`).join(" or ")}.`,
    );
  }
  // Set before running so an idempotency record stores the status the client will see.
  if (meta?.successStatus) ctx.response.status = meta.successStatus;
  return next({ ctx: { ...ctx, principal } });
});
