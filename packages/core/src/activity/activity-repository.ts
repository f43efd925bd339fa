import { SESSION_LIFETIME_MAX_SECONDS } from "@cred/contracts/verification-policies";
import type { UnitOfWork } from "@cred/db";
import { ID_CLOCK_SLACK_MS, idFloorAt } from "../shared/ids";
import { SqlParams } from "../shared/outbox-sql";
import type { TenantScope } from "../shared/principal";

export type ActivityMeasure = "issued" | "revoked" | "verified" | "rejected";

/** One count: how many records of `measure` fell on `day` (UTC, YYYY-MM-DD) for one issuer or policy. */
export interface ActivityCountRow {
  measure: ActivityMeasure;
  day: string;
  /** The issuer's id (issued, revoked) or the policy's identifier (verified, rejected). */
  key: string;
  n: number;
}

/**
 * Activity_Get's counts, grouped by UTC day (`date_trunc` over the time columns) and by issuer or
 * policy, always within one tenant and environment and the half-open range [start, end). Credentials
 * count by `issuedAt` and `revokedAt`, sessions by `decidedAt` with their final state. An issuer-bound
 * key counts only its issuer's credentials.
 */
export const activityRepository = {
  async countsPerDay(
    db: UnitOfWork,
    scope: TenantScope,
    range: { start: Date; end: Date },
    boundIssuerId: string | null,
  ): Promise<ActivityCountRow[]> {
    const p = new SqlParams();
    const tenantId = p.add(scope.tenantId);
    const environment = p.add(scope.environment);
    const start = `${p.add(range.start)}::timestamp(3)`;
    const end = `${p.add(range.end)}::timestamp(3)`;
    const issuer = boundIssuerId !== null ? ` AND "issuerId" = ${p.add(boundIssuerId)}` : "";
    const perDay = (column: string) => `to_char(date_trunc('day', "${column}"), 'YYYY-MM-DD')`;
    // Issuance and decisions walk the (tenant, environment, id) index's window of the range: ids are
    // time-ordered, a credential's id is made when it is issued and a session is decided within its
    // lifetime (at most the policy maximum), so no index on the time columns is kept up by every issuance and verification.
    const idWindow = (prefix: string, earlierMs: number) =>
      ` AND "id" >= ${p.add(idFloorAt(prefix, range.start.getTime() - earlierMs - ID_CLOCK_SLACK_MS))}` +
      ` AND "id" < ${p.add(idFloorAt(prefix, range.end.getTime() + ID_CLOCK_SLACK_MS))}`;
    const credentialsBy = (measure: "issued" | "revoked", column: string, window: string) =>
      `SELECT '${measure}' AS "measure", ${perDay(column)} AS "day", "issuerId" AS "key", count(*)::int AS "n"
         FROM "Credential"
        WHERE "tenantId" = ${tenantId} AND "environment" = ${environment}${issuer}${window}
          AND "${column}" >= ${start} AND "${column}" < ${end}
        GROUP BY 2, 3`;
    const sql = [
      credentialsBy("issued", "issuedAt", idWindow("cred", 0)),
      // Revocation may come any time after issuance: the partial revokedAt index (revoked rows only).
      credentialsBy("revoked", "revokedAt", ""),
      `SELECT "status" AS "measure", ${perDay("decidedAt")} AS "day", "policyIdentifier" AS "key", count(*)::int AS "n"
           FROM "VerificationSession"
          WHERE "tenantId" = ${tenantId} AND "environment" = ${environment}${idWindow("vs", SESSION_LIFETIME_MAX_SECONDS * 1000)}
            AND "decidedAt" >= ${start} AND "decidedAt" < ${end} AND "status" IN ('verified', 'rejected')
          GROUP BY 1, 2, 3`,
    ].join("\nUNION ALL\n");
    const { rows } = await db.sql.query<ActivityCountRow>(sql, p.values);
    return rows.map((row) => ({ ...row, n: Number(row.n) }));
  },

  /** Display names of the caller's issuers among `ids`. */
  async issuerNames(db: UnitOfWork, scope: TenantScope, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await db.prisma.issuer.findMany({
      where: { ...scope, id: { in: ids } },
      select: { id: true, displayName: true },
    });
    return new Map(rows.map((r) => [r.id, r.displayName]));
  },

  /** Display names of the caller's verification policies among `identifiers`. */
  async policyNames(db: UnitOfWork, scope: TenantScope, identifiers: string[]): Promise<Map<string, string>> {
    if (identifiers.length === 0) return new Map();
    const rows = await db.prisma.verificationPolicy.findMany({
      where: { ...scope, identifier: { in: identifiers } },
      select: { identifier: true, displayName: true },
    });
    return new Map(rows.map((r) => [r.identifier, r.displayName]));
  },
};
