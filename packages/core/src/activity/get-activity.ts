import {
  ACTIVITY_DEFAULT_DAYS,
  ACTIVITY_MAX_DAYS,
  type ActivityGrouping,
  type TActivity,
  type TActivityBucket,
  type TActivityCounts,
  type TGetActivityRequest,
} from "@cred/contracts/activity";
import type { UnitOfWork } from "@cred/db";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { type ActivityCountRow, type ActivityMeasure, activityRepository } from "./activity-repository";

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const startOfUtcDay = (now: Date) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());

/** Which measures each grouping counts: credentials belong to an issuer, sessions to a policy. */
const GROUP_MEASURES: Record<ActivityGrouping, ActivityMeasure[]> = {
  issuer: ["issued", "revoked"],
  policy: ["verified", "rejected"],
};
const ALL_MEASURES: ActivityMeasure[] = ["issued", "verified", "rejected", "revoked"];

const counts = (measures: ActivityMeasure[]): TActivityCounts => ({
  issued: measures.includes("issued") ? 0 : null,
  verified: measures.includes("verified") ? 0 : null,
  rejected: measures.includes("rejected") ? 0 : null,
  revoked: measures.includes("revoked") ? 0 : null,
});

/** The range the request names, checked: both days included, `from` ≤ `to`, at most ACTIVITY_MAX_DAYS. */
export function activityRange(input: Pick<TGetActivityRequest, "from" | "to">, now = new Date()) {
  const to = input.to !== undefined ? Date.parse(input.to) : startOfUtcDay(now);
  const from = input.from !== undefined ? Date.parse(input.from) : to - (ACTIVITY_DEFAULT_DAYS - 1) * DAY_MS;
  const days = Math.round((to - from) / DAY_MS) + 1;
  if (days < 1) {
    throw new DomainError("ValidationFailed", "The range ends before it starts.", [
      { code: "InvalidRange", target: "from", message: "`from` must be on or before `to`." },
    ]);
  }
  if (days > ACTIVITY_MAX_DAYS) {
    throw new DomainError("ValidationFailed", `The range spans ${days} days; at most ${ACTIVITY_MAX_DAYS}.`, [
      {
        code: "RangeTooLong",
        target: input.from !== undefined ? "from" : "to",
        message: `Ask for at most ${ACTIVITY_MAX_DAYS} days at a time.`,
      },
    ]);
  }
  return { from, days, start: new Date(from), end: new Date(to + DAY_MS) };
}

/** Zero-filled buckets, one per day of the range, with the counts of `rows` added. */
function bucketsOf(rows: ActivityCountRow[], from: number, days: number, measures: ActivityMeasure[]) {
  const buckets: TActivityBucket[] = Array.from({ length: days }, (_, i) => ({
    start: dayOf(from + i * DAY_MS),
    ...counts(measures),
  }));
  const index = new Map(buckets.map((b, i) => [b.start, i]));
  const total = counts(measures);
  for (const row of rows) {
    const bucket = buckets[index.get(row.day) ?? -1];
    if (!bucket || !measures.includes(row.measure)) continue;
    bucket[row.measure] = (bucket[row.measure] ?? 0) + row.n;
    total[row.measure] = (total[row.measure] ?? 0) + row.n;
  }
  return { buckets, total };
}

const activityOf = (c: TActivityCounts) =>
  (c.issued ?? 0) + (c.verified ?? 0) + (c.rejected ?? 0) + (c.revoked ?? 0);

/**
 * Activity_Get: issued, verified, rejected and revoked counts per UTC day of the caller's partition over
 * the range, and per issuer or per policy when asked. An issuer-bound key counts only its issuer's
 * credentials (as Credentials_List shows only those).
 */
export async function getActivity(
  db: UnitOfWork,
  scope: TenantScope,
  boundIssuerId: string | null,
  input: TGetActivityRequest,
  now = new Date(),
): Promise<TActivity> {
  const range = activityRange(input, now);
  const rows = await activityRepository.countsPerDay(db, scope, range, boundIssuerId);
  const overall = bucketsOf(rows, range.from, range.days, ALL_MEASURES);
  const activity: TActivity = {
    from: dayOf(range.from),
    to: dayOf(range.from + (range.days - 1) * DAY_MS),
    interval: input.interval,
    groupBy: input.groupBy ?? null,
    total: overall.total,
    buckets: overall.buckets,
    groups: [],
  };
  if (input.groupBy === undefined) return activity;

  const measures = GROUP_MEASURES[input.groupBy];
  const byKey = new Map<string, ActivityCountRow[]>();
  for (const row of rows) {
    if (!measures.includes(row.measure)) continue;
    byKey.set(row.key, [...(byKey.get(row.key) ?? []), row]);
  }
  const keys = [...byKey.keys()];
  const names =
    input.groupBy === "issuer"
      ? await activityRepository.issuerNames(db, scope, keys)
      : await activityRepository.policyNames(db, scope, keys);
  activity.groups = keys
    .map((key) => ({
      key,
      name: names.get(key) ?? null,
      ...bucketsOf(byKey.get(key)!, range.from, range.days, measures),
    }))
    .sort((a, b) => activityOf(b.total) - activityOf(a.total) || a.key.localeCompare(b.key));
  return activity;
}
