import type { UnitOfWork } from "@cred/db";

/** How full the status lists are, across tenants and issuers (no ids): the metrics read it on a scrape. */
export interface StatusListFill {
  /** Lists new credentials still go to. */
  open: number;
  /** Lists marked full (new credentials go to a fresh one). */
  full: number;
  /** Entries taken over size of the open lists: the fullest one's ratio, and the mean (0 without open lists). */
  maxRatio: number;
  meanRatio: number;
}

export const statusListFillRepository = {
  /**
   * One aggregate. Entries are drawn at random (no counter is kept), so the entries taken are the
   * credentials that hold one: counted for the open lists only, through the (list, index) unique index,
   * so the cost is bounded by the open lists' size, not by every credential ever issued.
   */
  async fill(db: UnitOfWork): Promise<StatusListFill> {
    const { rows } = await db.sql.query<StatusListFill>(
      `SELECT count(*) FILTER (WHERE NOT l."full")::int AS "open",
              count(*) FILTER (WHERE l."full")::int AS "full",
              coalesce(max(t."taken"::float8 / l."size") FILTER (WHERE NOT l."full"), 0)::float8 AS "maxRatio",
              coalesce(avg(coalesce(t."taken", 0)::float8 / l."size") FILTER (WHERE NOT l."full"), 0)::float8
                AS "meanRatio"
         FROM "StatusList" l
         LEFT JOIN LATERAL (
           SELECT count(*) AS "taken" FROM "Credential" c WHERE c."statusListId" = l."id" AND NOT l."full"
         ) t ON true
        WHERE l."size" > 0`,
    );
    return rows[0] ?? { open: 0, full: 0, maxRatio: 0, meanRatio: 0 };
  },
};
