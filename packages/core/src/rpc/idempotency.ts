import type { UnitOfWork } from "@cred/db";
import type { AnyRouter } from "@trpc/server";
import { getParseFn, isObject, middlewareMarker } from "@trpc/server/unstable-core-do-not-import";
import type { RequestContext } from "../shared/context";
import { withIdempotency } from "../shared/idempotency";
import type { Principal } from "../shared/principal";

type ParseInput = (raw: unknown) => Promise<unknown>;

/** The input parser of every `meta.idempotent` procedure, by procedure path. */
export type IdempotentInputs = ReadonlyMap<string, ParseInput>;

/** What the middleware reads of a procedure's meta (trpc.ts `OperationMeta`). */
interface IdempotencyMeta {
  idempotent?: boolean;
  openapi?: { operationId?: string };
}

/**
 * Reads each idempotent procedure's input parsers once, by procedure path: the middleware runs before
 * tRPC parses the input, and the key's fingerprint is taken over the parsed input (defaults applied,
 * unknown keys dropped), as it always was. Built where the router is composed (the composition root
 * puts the app router's in `deps.idempotentInputs`), so no module keeps them.
 */
export function idempotentInputParsers(router: AnyRouter): IdempotentInputs {
  const inputParsers = new Map<string, ParseInput>();
  const procedures = router._def.procedures as Record<
    string,
    { _def: { meta?: IdempotencyMeta; inputs: unknown[] } }
  >;
  for (const [path, procedure] of Object.entries(procedures)) {
    if (!procedure._def.meta?.idempotent) continue;
    const parsers = procedure._def.inputs.map((parser) => getParseFn(parser as never));
    // As tRPC's input middleware combines several `.input()` parsers.
    inputParsers.set(path, async (raw) => {
      let input: unknown;
      for (const parse of parsers) {
        const parsed = await parse(raw);
        input = isObject(input) && isObject(parsed) ? { ...input, ...parsed } : parsed;
      }
      return input;
    });
  }
  return inputParsers;
}

export interface OperationUnit {
  /** The root or, under an Idempotency-Key, the transaction the response's record commits with. */
  db: UnitOfWork;
}

type MiddlewareResult = { ok: boolean; data?: unknown; error?: unknown; ctx?: unknown };

/**
 * The Idempotency-Key of `meta.idempotent` operations (shared/idempotency.ts: scope, seal, claim,
 * replay): without a key, or on other operations, the procedure runs as it is. With one, the key is
 * claimed, and the procedure runs with `ctx.db` the transaction its response's record is written in
 * (the unit of work, docs/adr/0019-idempotency-middleware.md); a replay answers the stored response
 * without running it. Effects that must follow the commit (cache invalidations) go to `ctx.db.afterCommit`.
 */
export async function idempotencyMiddleware<R extends MiddlewareResult>(opts: {
  ctx: RequestContext;
  meta: IdempotencyMeta | undefined;
  path: string;
  getRawInput: () => Promise<unknown>;
  next: (unit: OperationUnit) => Promise<R>;
}): Promise<R> {
  const { ctx, meta, path, next } = opts;
  const key = meta?.idempotent ? ctx.idempotencyKey : undefined;
  const parse = ctx.deps.idempotentInputs.get(path);
  const operation = meta?.openapi?.operationId;
  if (key === undefined || !parse || !operation || !ctx.principal) {
    return next({ db: ctx.db });
  }
  let input: unknown;
  try {
    input = await parse(await opts.getRawInput());
  } catch {
    // Not valid: tRPC's own input parsing answers it, before anything is claimed.
    return next({ db: ctx.db });
  }
  let result: R | undefined;
  let data: unknown;
  try {
    data = await withIdempotency(
      ctx as RequestContext & { principal: Principal },
      operation,
      input,
      async (db) => {
        result = await next({ db });
        // Throwing rolls the unit of work back and releases the key; the result is answered as it was.
        if (!result.ok) throw result.error;
        return result.data;
      },
    );
  } catch (error) {
    if (result && !result.ok && error === result.error) return result;
    throw error;
  }
  // A replay: the stored response (withIdempotency set its status and Idempotent-Replayed).
  return result ?? ({ ok: true, data, ctx, marker: middlewareMarker } as unknown as R);
}
