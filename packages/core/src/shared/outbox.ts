import type { UnitOfWork } from "@cred/db";
import { newId } from "./ids";
import { outboxRepository } from "./outbox-repository";
import type { TenantScope } from "./principal";

/**
 * Records an event in the outbox. Call it with the transaction that makes the state change, so
 * the event exists exactly when the change does (delivery is the webhook worker's job). The row is the
 * one `outboxSelect` describes, as written by the single-statement paths.
 */
export async function emitEvent(
  db: UnitOfWork,
  scope: TenantScope,
  type: string,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newId("evt");
  await outboxRepository.insertEvent(db, scope, id, type, data);
  return id;
}
