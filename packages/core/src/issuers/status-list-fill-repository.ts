import type { UnitOfWork } from "@cred/db";

/** How full the status lists are, across tenants and issuers (no ids): the metrics read it on a scrape. */
export interface StatusListFill {
  /** Status lists in all. */
  lists: number;
  /** Lists marked full (new credentials go to a fresh one). */
  full: number;
  /** Allocated entries over size: the fullest list's ratio, and the mean over lists (0 without lists). */
  maxRatio: number;
  meanRatio: number;
}

export const statusListFillRepository = {
  /** One aggregate over every `StatusList` row (a handful per issuer; no index needed). */
  async fill(db: UnitOfWork): Promise<StatusListFill> {
    const { rows } = await db.sql.query<StatusListFill>(
      `SELECT count(*)::int AS "lists",
              count(*) FILTER (WHERE "full")::int AS "full",
              coalesce(max("allocated"::float8 / nullif("size", 0)), 0)::float8 AS "maxRatio",
              coalesce(avg("allocated"::float8 / nullif("size", 0)), 0)::float8 AS "meanRatio"
         FROM "StatusList"`,
    );
    return rows[0] ?? { lists: 0, full: 0, maxRatio: 0, meanRatio: 0 };
  },
};
