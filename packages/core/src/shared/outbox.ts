import type { Db } from "@cred/db";
import { newId } from "./ids";
import type { TenantScope } from "./principal";

/**
 * Records an event in the outbox. Call it with the transaction that makes the state change, so
 * the event exists exactly when the change does (delivery is the webhook worker's job).
 */
export async function emitEvent(
  db: Db,
  scope: TenantScope,
  type: string,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newId("evt");
  await db.outboxEvent.create({
    data: { id, tenantId: scope.tenantId, environment: scope.environment, type, payload: data as object },
  });
  return id;
}
