import { actorOf, recordAuditEvent, sealAuditChainSoon } from "../shared/audit-trail";
import type { RequestContext } from "../shared/context";
import { toErrorEnvelope } from "../shared/error-shape";
import type { Principal } from "../shared/principal";

type MiddlewareResult = { ok: boolean; data?: unknown; error?: unknown };

/**
 * Runs an authenticated state-changing call and appends its audit event, whatever the outcome: the
 * status the caller gets (2xx, a refusal for authorization, or another error), with the operation, the
 * target and a summary of the input without secrets or claim values (shared/audit-trail.ts). The event
 * is written after the call answered and before the answer leaves; a seal chains it moments later.
 */
export async function audited<R extends MiddlewareResult>(
  call: {
    ctx: RequestContext;
    principal: Principal;
    operation: string;
    getRawInput: () => Promise<unknown>;
  },
  run: () => Promise<R>,
): Promise<R> {
  const { ctx, principal } = call;
  let result: R | undefined;
  let thrown: unknown;
  try {
    result = await run();
  } catch (error) {
    thrown = error ?? new Error("unknown");
  }
  const error = thrown ?? (result && !result.ok ? result.error : undefined);
  const status =
    error !== undefined ? toErrorEnvelope(error, ctx.requestId).status : (ctx.response.status ?? 200);
  const input = await call.getRawInput().catch(() => undefined);
  await recordAuditEvent(ctx.deps.database.root, {
    tenantId: principal.tenantId,
    environment: principal.environment,
    actor: actorOf(principal),
    operation: call.operation,
    input,
    output: result?.ok ? result.data : undefined,
    status,
    requestId: ctx.requestId,
    clientRequestId: ctx.clientRequestId,
    sourceAddress: ctx.clientAddress,
  });
  sealAuditChainSoon(ctx.deps, principal.tenantId);
  if (thrown !== undefined) throw thrown;
  return result as R;
}
