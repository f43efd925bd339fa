import type { UnitOfWork } from "@cred/db";

export type SealedRow = Record<string, unknown>;

/** Where a column of sealed values (or keyed hashes) rests, as reseal-secrets.ts lists them. */
interface ColumnRef {
  table: string;
  column: string;
  json?: boolean;
  reads?: string[];
}

/**
 * The master key rotation's statements over every table that holds sealed values (reseal-secrets.ts):
 * pages by id across all tenants (an operator's maintenance, no tenant scope), and conditional writes.
 * Table and column names come from the lists in reseal-secrets.ts, never from input.
 */
export const sealedValueRepository = {
  /** Up to `page` rows after `after` (by id) whose column holds a value: id, the column, `reads`. */
  sealedPage(db: UnitOfWork, sealed: ColumnRef, after: string, page: number): Promise<SealedRow[]> {
    const columns = ["id", sealed.column, ...(sealed.reads ?? [])].map((c) => `"${c}"`).join(", ");
    return db.prisma.$queryRawUnsafe<SealedRow[]>(
      `SELECT ${columns} FROM "${sealed.table}" WHERE "id" > $1 AND "${sealed.column}" IS NOT NULL ORDER BY "id" LIMIT ${page}`,
      after,
    );
  },
  /** Writes `resealed` over the row's value if it is still `value` as read; false when it changed meanwhile. */
  async replaceIfUnchanged(
    db: UnitOfWork,
    sealed: ColumnRef,
    id: unknown,
    resealed: unknown,
    value: unknown,
  ): Promise<boolean> {
    const cast = sealed.json ? "::jsonb" : "";
    const encode = (v: unknown) => (sealed.json ? JSON.stringify(v) : v);
    const written = await db.prisma.$executeRawUnsafe(
      `UPDATE "${sealed.table}" SET "${sealed.column}" = $1${cast} WHERE "id" = $2 AND "${sealed.column}" = $3${cast}`,
      encode(resealed),
      id,
      encode(value),
    );
    return written === 1;
  },
  /**
   * Up to `page` rows after `after` (by id) whose keyed hash is still usable at `now` (`live`, with $1 =
   * now): id, `hash` and `until`.
   */
  keyedHashPage(
    db: UnitOfWork,
    keyed: { table: string; column: string; live: string; usableUntil: string },
    now: Date,
    after: string,
    page: number,
  ): Promise<SealedRow[]> {
    return db.prisma.$queryRawUnsafe<SealedRow[]>(
      `SELECT "id", "${keyed.column}" AS "hash", "${keyed.usableUntil}" AS "until" FROM "${keyed.table}"
          WHERE "${keyed.column}" IS NOT NULL AND ${keyed.live} AND "id" > $2 ORDER BY "id" LIMIT ${page}`,
      now,
      after,
    );
  },
};
