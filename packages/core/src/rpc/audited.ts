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
    /** A platform operation: the event goes to the affected tenant's trail once it succeeded. */
    platform?: boolean;
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
  const output = result?.ok ? result.data : undefined;
  const tenantId = (call.platform && affectedTenant(input, output)) || principal.tenantId;
  await recordAuditEvent(ctx.deps.database.root, {
    tenantId,
    environment: principal.environment,
    actor: actorOf(principal),
    operation: call.operation,
    input,
    output,
    status,
    requestId: ctx.requestId,
    clientRequestId: ctx.clientRequestId,
    sourceAddress: ctx.clientAddress,
  });
  sealAuditChainSoon(ctx.deps, tenantId);
  if (thrown !== undefined) throw thrown;
  return result as R;
}

/**
 * The tenant a platform operation acted on, once it succeeded: the path's `tenantId`, or the id of the
 * tenant Tenants_Create made. A refused or failed call names none (its tenant may not exist), so its
 * event stays in the caller's own trail (docs/api/tenants.md).
 */
function affectedTenant(input: unknown, output: unknown): string | undefined {
  if (output === undefined) return undefined;
  const fromInput = (input as { tenantId?: unknown } | undefined)?.tenantId;
  if (typeof fromInput === "string") return fromInput;
  const created = (output as { data?: { id?: unknown } } | undefined)?.data?.id;
  return typeof created === "string" ? created : undefined;
}
