"use client";
import { useQuery } from "@tanstack/react-query";
import { DailyChart } from "../../../components/daily-chart";
import { useSession } from "../../../components/session";
import { ErrorAlert, Loading, PageHeader } from "../../../components/status";
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

export default function DashboardPage() {
  const trpc = useTRPC();
  const session = useSession();
  const summary = useQuery(trpc.dashboard.summary.queryOptions({ days: 14 }));
  return (
    <>
      <PageHeader title="Dashboard">
        {session.tenant.name} · {session.environment}
      </PageHeader>
      {summary.isPending && <Loading />}
      <ErrorAlert error={summary.error} />
      {summary.data && (
        <>
          <dl className="totals">
            {TOTALS.map(([key, label]) => (
              <div key={key} className="total">
                <dt>{label}</dt>
                <dd data-testid={`total-${key}`}>{summary.data.data.totals[key]}</dd>
              </div>
            ))}
          </dl>
          <section aria-labelledby="activity-title" className="card">
            <h2 id="activity-title">Last 14 days</h2>
            <DailyChart daily={summary.data.data.daily} />
          </section>
        </>
      )}
    </>
  );
}
