import type { SqlParam } from "@cred/db";
import { newId } from "./ids";
import { signalOutboxWrite } from "./outbox-signal";
import type { TenantScope } from "./principal";

/** Positional parameters of a statement under construction: `p.add(value)` returns its `$n`. */
export class SqlParams {
  readonly values: SqlParam[] = [];
  add(value: SqlParam): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The select list of an outbox row, for statements that write a change and its event at once
 * (`WITH changed AS (…) INSERT INTO "OutboxEvent" (<OUTBOX_COLUMNS>) SELECT <this> FROM changed`): atomic,
 * one round trip. An event whose tenant and environment have no active webhook subscription when it is
 * written can reach nobody, so it is written already dispatched (no deliveries): the webhook worker's
 * fan-out, two statements and an update of every event, is then only paid by tenants that use webhooks.
 * Otherwise the worker fans it out (events/dispatch-outbox-events.ts).
 */
export function outboxSelect(
  p: SqlParams,
  scope: TenantScope,
  type: string,
  data: Record<string, unknown>,
  id = newId("evt"),
) {
  signalOutboxWrite(); // every event is written through here
  const tenantId = p.add(scope.tenantId);
  const environment = p.add(scope.environment);
  const dispatchedAt = `CASE WHEN EXISTS (
      SELECT 1 FROM "WebhookSubscription" s WHERE s."tenantId" = ${tenantId} AND s."environment" = ${environment}
         AND s."status" = 'active' AND s."deletedAt" IS NULL)
    THEN NULL ELSE ${p.add(new Date())}::timestamp(3) END`;
  return `${p.add(id)}, ${tenantId}, ${environment}, ${p.add(type)}, ${p.add(JSON.stringify(data))}::jsonb, ${dispatchedAt}`;
}

export const OUTBOX_COLUMNS = `"id", "tenantId", "environment", "type", "payload", "dispatchedAt"`;
