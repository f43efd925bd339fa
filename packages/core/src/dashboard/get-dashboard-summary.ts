import type { TDashboardSummary } from "@cred/contracts/dashboard";
import type { UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";
import { dashboardRepository } from "./dashboard-repository";

const DAY_MS = 86_400_000;
const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** Totals and per-day counts (UTC days, oldest first, today last) for the console dashboard. */
export async function getDashboardSummary(
  db: UnitOfWork,
  scope: TenantScope,
  days: number,
  now = new Date(),
): Promise<TDashboardSummary> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(today - (days - 1) * DAY_MS);
  const [totals, created] = await Promise.all([
    dashboardRepository.totals(db, scope),
    dashboardRepository.createdSince(db, scope, since),
  ]);
  const daily = Array.from({ length: days }, (_, i) => ({
    day: dayOf(new Date(since.getTime() + i * DAY_MS)),
    issuances: 0,
    credentials: 0,
    verifications: 0,
  }));
  const index = new Map(daily.map((d, i) => [d.day, i]));
  const tally = (rows: { createdAt: Date }[], key: "issuances" | "credentials" | "verifications") => {
    for (const row of rows) {
      const i = index.get(dayOf(row.createdAt));
      if (i !== undefined) daily[i]![key] += 1;
    }
  };
  tally(created.issuances, "issuances");
  tally(created.credentials, "credentials");
  tally(created.verifications, "verifications");
  return { totals, daily };
}
