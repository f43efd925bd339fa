"use client";
import type { ActivityGrouping, TActivityGroup } from "@cred/contracts/activity";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { ACTIVITY_SERIES, ActivityChart } from "../../../components/activity-chart";
import { useSession } from "../../../components/session";
import { Empty, ErrorAlert, Loading, PageHeader } from "../../../components/status";
import { useTRPC } from "../../../lib/trpc";

const TOTALS = [
  ["organisations", "Organisations"],
  ["issuers", "Issuers"],
  ["activeIssuers", "Active issuers"],
  ["credentialConfigurations", "Credential configurations"],
  ["credentials", "Credentials issued"],
  ["issuanceTransactions", "Issuance transactions"],
  ["verificationPolicies", "Verification policies"],
  ["verificationSessions", "Verifications"],
  ["verifiedSessions", "Verified"],
  ["webhooks", "Webhooks"],
] as const;

/** The ranges the activity can be shown over (`?days=` in the URL), the first the default. */
const RANGES = [30, 7, 90] as const;
type Range = (typeof RANGES)[number];

function useRange(): Range {
  const raw = Number(useSearchParams().get("days"));
  return (RANGES as readonly number[]).includes(raw) ? (raw as Range) : RANGES[0];
}

/** The UTC days of the last `days` days, today included, as Activity_Get takes them. */
function lastDays(days: number) {
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
}

export default function DashboardPage() {
  const trpc = useTRPC();
  const session = useSession();
  const summary = useQuery(trpc.dashboard.summary.queryOptions());
  return (
    <>
      <PageHeader title="Dashboard">
        {session.tenant.name} · {session.environment}
      </PageHeader>
      {summary.isPending && <Loading />}
      <ErrorAlert error={summary.error} />
      {summary.data && (
        <dl className="totals">
          {TOTALS.map(([key, label]) => (
            <div key={key} className="total">
              <dt>{label}</dt>
              <dd data-testid={`total-${key}`}>{summary.data.data.totals[key]}</dd>
            </div>
          ))}
        </dl>
      )}
      <Activity />
    </>
  );
}

/** Issued, verified, rejected and revoked per day over the chosen range, and per issuer and policy. */
function Activity() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const days = useRange();
  const range = lastDays(days);
  const byIssuer = useQuery(trpc.activity.get.queryOptions({ ...range, interval: "day", groupBy: "issuer" }));
  const byPolicy = useQuery(trpc.activity.get.queryOptions({ ...range, interval: "day", groupBy: "policy" }));
  const overall = byIssuer.data?.data;
  return (
    <section aria-labelledby="activity-title" className="card" data-testid="activity">
      <h2 id="activity-title">Activity over the last {days} days</h2>
      <nav aria-label="Activity range" className="range-switch">
        Show:
        {RANGES.toSorted((a, b) => a - b).map((n) => (
          <Link key={n} href={`${pathname}?days=${n}`} aria-current={n === days ? "true" : undefined}>
            {n} days
          </Link>
        ))}
      </nav>
      {byIssuer.isPending && <Loading />}
      <ErrorAlert error={byIssuer.error ?? byPolicy.error} title="Could not load the activity" />
      {overall && (
        <>
          <dl className="totals">
            {ACTIVITY_SERIES.map((s) => (
              <div key={s.key} className="total">
                <dt>
                  <span className={`swatch series-${s.key}`} aria-hidden="true" /> {s.label}
                </dt>
                <dd data-testid={`activity-total-${s.key}`}>{overall.total[s.key]}</dd>
              </div>
            ))}
          </dl>
          <p className="hint">
            UTC days {overall.from} to {overall.to}. Credentials count on the day they were issued or revoked,
            verifications on the day they were decided.
          </p>
          <ActivityChart
            buckets={overall.buckets}
            title={`Issued, verified, rejected and revoked per day, last ${days} days`}
          />
          <GroupTable grouping="issuer" groups={overall.groups} />
        </>
      )}
      {byPolicy.data && <GroupTable grouping="policy" groups={byPolicy.data.data.groups} />}
    </section>
  );
}

const GROUPINGS: Record<
  ActivityGrouping,
  { title: string; noun: string; counts: ("issued" | "verified" | "rejected" | "revoked")[] }
> = {
  issuer: { title: "Per issuer", noun: "Issuer", counts: ["issued", "revoked"] },
  policy: { title: "Per verification policy", noun: "Policy", counts: ["verified", "rejected"] },
};

function GroupTable({ grouping, groups }: { grouping: ActivityGrouping; groups: TActivityGroup[] }) {
  const { title, noun, counts } = GROUPINGS[grouping];
  const label = (key: string) => ACTIVITY_SERIES.find((s) => s.key === key)?.label ?? key;
  return (
    <>
      <h3 id={`activity-${grouping}`}>{title}</h3>
      {groups.length === 0 ? (
        <Empty>None in this range.</Empty>
      ) : (
        <table aria-labelledby={`activity-${grouping}`} data-testid={`activity-by-${grouping}`}>
          <thead>
            <tr>
              <th scope="col">{noun}</th>
              {counts.map((c) => (
                <th key={c} scope="col">
                  {label(c)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr key={g.key} data-testid={`activity-${grouping}-${g.key}`}>
                <th scope="row">
                  {grouping === "issuer" ? (
                    <Link href={`/issuers/${encodeURIComponent(g.key)}`}>{g.name ?? g.key}</Link>
                  ) : (
                    <Link href={`/verifications?policy=${encodeURIComponent(g.key)}`}>{g.name ?? g.key}</Link>
                  )}
                  {g.name && g.name !== g.key && (
                    <div className="hint">
                      <code>{g.key}</code>
                    </div>
                  )}
                </th>
                {counts.map((c) => (
                  <td key={c}>{g.total[c]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
