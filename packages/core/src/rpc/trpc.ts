import "@cred/contracts/zod-messages";
import "../shared/contract-checks";
import type { Scope } from "@cred/contracts/scopes";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { RequestContext } from "../shared/context";
import { toErrorEnvelope } from "../shared/error-shape";
import { DomainError } from "../shared/errors";
import { audited } from "./audited";
import { authenticate } from "./authenticate";
import { idempotencyMiddleware, type OperationUnit } from "./idempotency";
import { assertStaffCsrf } from "./staff-session";

export interface OperationMeta extends OpenApiMeta {
  /** The caller needs one of these scopes (or, with `scopeMatch: "all"`, every one of them). */
  scopes?: Scope[];
  /** `all`: an operation over several kinds of record needs the read scope of each (default `any`). */
  scopeMatch?: "any" | "all";
  /** HTTP status on success (defaults to 200). */
  successStatus?: number;
  /** Error statuses the operation documents (spec §4). */
  errorStatuses?: number[];
  /** Accepts the Idempotency-Key header: runs under the idempotency middleware (rpc/idempotency.ts). */
  idempotent?: boolean;
  /**
   * The success answer is a stream: the procedure returns an async iterable of item batches, which the
   * REST adapter writes in this media type (`application/x-ndjson`: one JSON item per line).
   */
  responseMediaType?: "application/x-ndjson";
  /**
   * A platform operation (tenants/router.ts): not tenant-bound; its audit event goes to the trail of the
   * tenant it acted on (rpc/audited.ts).
   */
  platform?: boolean;
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

/**
 * Authenticated, throttled, scope-checked procedure. Build on it directly only to do something before
 * the idempotency unit of work opens (`protectedProcedure` is this plus `idempotency`).
 */
export const authenticatedProcedure = t.procedure.use(
  async ({ ctx, meta, type, path, getRawInput, next }) => {
    const principal = await authenticate(ctx);
    const checkedCall = async () => {
      // Console mutations: the one CSRF check for staff principals (API keys are not ambient credentials).
      if (principal.kind === "staff" && type === "mutation") {
        await assertStaffCsrf(ctx.db, ctx.staffSessionToken ?? "", ctx.csrfToken);
      }
      Object.assign(ctx.response.headers, await ctx.deps.rateLimiter.consume(principal.id));
      const needed = meta?.scopes ?? [];
      const all = meta?.scopeMatch === "all";
      const held = (scope: Scope) => principal.scopes.has(scope);
      if (needed.length > 0 && !(all ? needed.every(held) : needed.some(held))) {
        throw new DomainError(
          "MissingScope",
          `This operation needs the scope${all ? "s" : ""} ${needed.map((s) => `'${s}'`).join(all ? " and " : " or ")}.`,
        );
      }
      // Set before running so an idempotency record stores the status the client will see.
      if (meta?.successStatus) ctx.response.status = meta.successStatus;
      return next({ ctx: { ...ctx, principal } });
    };
    if (type !== "mutation") return checkedCall();
    return audited(
      {
        ctx,
        principal,
        operation: meta?.openapi?.operationId ?? `console:${path}`,
        platform: meta?.platform === true,
        getRawInput,
      },
      checkedCall,
    );
  },
);

/** `meta.idempotent` operations honour Idempotency-Key (rpc/idempotency.ts); may run it in a transaction. */
export const idempotency = t.middleware(({ ctx, meta, path, getRawInput, next }) =>
  idempotencyMiddleware({ ctx, meta, path, getRawInput, next: (unit: OperationUnit) => next({ ctx: unit }) }),
);

/** The base of every spec operation: authenticated, throttled, scope-checked, idempotent by meta. */
export const protectedProcedure = authenticatedProcedure.use(idempotency);
