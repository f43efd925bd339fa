import type { UnitOfWork } from "@cred/db";

/**
 * For the tracing unit tests: a root unit of work with no database behind it, whose `sql.query` answers
 * no rows (or runs `query`), and whose Prisma client and transactions are not there.
 */
export function fakeRootUnit(
  query: (text: string) => Promise<{ rows: unknown[]; affected: number }> = async () => ({
    rows: [],
    affected: 0,
  }),
): UnitOfWork {
  return {
    prisma: {},
    sql: { query },
    inTransaction: false,
    transaction: () => Promise.reject(new Error("not used")),
    afterCommit: (effect: () => void) => effect(),
  } as unknown as UnitOfWork;
}
