import type { SqlParam } from "@cred/db";
import { newId } from "./ids";
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
 * (`WITH changed AS (…) INSERT INTO "OutboxEvent" (…) SELECT <this> FROM changed`): atomic, one round trip.
 */
export function outboxSelect(p: SqlParams, scope: TenantScope, type: string, data: Record<string, unknown>) {
  return `${p.add(newId("evt"))}, ${p.add(scope.tenantId)}, ${p.add(scope.environment)}, ${p.add(type)}, ${p.add(JSON.stringify(data))}::jsonb`;
}

export const OUTBOX_COLUMNS = `"id", "tenantId", "environment", "type", "payload"`;
