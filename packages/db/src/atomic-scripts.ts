import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type pg from "pg";

/**
 * The adapter factory the schema engine applies migrations through, with each script (a migration's
 * SQL) sent as one simple-protocol query on one connection, which PostgreSQL runs as one implicit
 * transaction: a failing statement leaves none of the script's statements applied. The pg adapter's
 * own `executeScript` splits the script at every `;` and runs the pieces one by one on whichever pooled
 * connection is free, so a failure left the statements before it in place. A statement that cannot run
 * inside a transaction (`CREATE INDEX CONCURRENTLY`) therefore fails here: such a migration needs to be
 * applied by hand (docs/operations.md).
 */
export function atomicScripts(
  factory: SqlMigrationAwareDriverAdapterFactory,
  pool: pg.Pool,
): SqlMigrationAwareDriverAdapterFactory {
  const atomic = <T extends object>(adapter: T): T =>
    new Proxy(adapter, {
      get(target, property) {
        if (property === "executeScript") {
          return async (script: string) => {
            const client = await pool.connect();
            let failure: Error | undefined;
            try {
              await client.query(script);
            } catch (error) {
              failure = error as Error;
              // The adapter's own conversion, so the engine reports the database's message and code.
              (target as unknown as { onError(error: unknown): never }).onError(error);
            } finally {
              // A connection whose batch failed is not handed out again (its state is not known).
              client.release(failure);
            }
          };
        }
        return passThrough(target, property);
      },
    });
  return new Proxy(factory, {
    get(target, property) {
      // Only the main database's adapter: `pool` is its pool (a shadow database has its own).
      if (property === "connect") return async () => atomic(await target.connect());
      return passThrough(target, property);
    },
  });
}

/** What a proxy hands out unchanged: the target's member, a method bound to the target. */
function passThrough(target: object, property: string | symbol): unknown {
  const value = Reflect.get(target, property, target);
  return typeof value === "function" ? value.bind(target) : value;
}
