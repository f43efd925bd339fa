"use client";
import {
  type TListVerificationSessionsRequest,
  type TVerificationSession,
  VERIFICATION_SESSION_STATUSES,
  type VerificationSessionStatus,
} from "@cred/contracts/verification-sessions";
import Link from "next/link";
import { PagedTable } from "../../../components/data-table";
import { FilterField, TextField } from "../../../components/form-fields";
import { Time } from "../../../components/record-choices";
import { DayRangeFields, FilterForm, RecordListPage } from "../../../components/record-list";
import { Badge, PageHeader } from "../../../components/status";
import { useCursorPages, usePageSize } from "../../../lib/paging";
import { useAllResourceItems } from "../../../lib/resource-lists";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";
import { dayRange, type FilterValues, isDay, oneOf, useUrlFilters } from "../../../lib/url-filters";
import { KNOWN_REASON_CODES, reasonSentence } from "../../../lib/verification-words";

/**
 * The filters as the URL holds them (`/verifications?status=rejected&policy=over-18&from=2026-11-01`); the
 * dates are calendar days in the viewer's time zone.
 */
const FILTERS = ["status", "policy", "reason", "from", "to"] as const;
type Filters = FilterValues<(typeof FILTERS)[number]>;

/** VerificationSessions_List's input for these filters: `to` up to and including its day. */
function toQuery(f: Filters): Omit<TListVerificationSessionsRequest, "limit" | "cursor"> {
  const { from, to } = dayRange(f.from, f.to);
  return {
    ...(f.status && { status: f.status as VerificationSessionStatus }),
    ...(f.policy && { policy: f.policy }),
    ...(f.reason && { reason: f.reason }),
    ...(from && { createdFrom: from }),
    ...(to && { createdTo: to }),
  };
}

export default function VerificationsPage() {
  return (
    <RecordListPage
      scope="verification.read"
      title="Verifications"
      refusal="Your role cannot read verification sessions."
      list={VerificationSessions}
    />
  );
}

/** What came of a session, in a few words: the first reason as a sentence, or how it ended. */
function outcomeSummary(session: TVerificationSession): string {
  if (session.resultWithheld) return "Decided; the result is withheld (see details).";
  const result = session.result;
  if (!result) {
    const words: Record<VerificationSessionStatus, string> = {
      pending: "Waiting for the holder's wallet.",
      verified: "Verified.",
      rejected: "Rejected.",
      expired: "Nobody answered before it expired.",
      cancelled: "Cancelled before anyone answered.",
    };
    return words[session.status];
  }
  const first = result.reasons?.[0];
  if (result.outcome === "verified") {
    const n = result.credentials.length;
    return `Verified: ${n} credential${n === 1 ? "" : "s"} passed every check.`;
  }
  return first ? (reasonSentence(first.code) ?? first.message) : "Rejected.";
}

function VerificationSessions() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const pageSize = usePageSize();
  const policies = useAllResourceItems("verificationPolicies");
  const filters = useUrlFilters(FILTERS, {
    status: oneOf(VERIFICATION_SESSION_STATUSES),
    from: isDay,
    to: isDay,
  });
  const { draft, set, applied } = filters;
  const query = toQuery(applied);
  const list = useCursorPages({
    queryKey: trpc.verifications.listSessions.infiniteQueryKey({ limit: pageSize, ...query }),
    fetchPage: (cursor, signal) =>
      client.verifications.listSessions.query({ limit: pageSize, cursor, ...query }, { signal }),
  });

  const policyOptions = [
    ...new Set([
      ...(policies.data?.items.map((p) => p.identifier) ?? []),
      ...(applied.policy ? [applied.policy] : []),
    ]),
  ];

  return (
    <>
      <PageHeader title="Verifications">
        Every verification session in this environment, newest first: who was asked for what, and how it
        ended. Open one to read each check in words.
      </PageHeader>
      <FilterForm id="verification-filters" filters={filters}>
        <FilterField
          label="Status"
          allLabel="All statuses"
          value={draft.status as "" | VerificationSessionStatus}
          onChange={set("status")}
          options={VERIFICATION_SESSION_STATUSES}
        />
        <FilterField
          label="Policy"
          allLabel="All policies"
          value={draft.policy}
          onChange={set("policy")}
          options={policyOptions}
        />
        <TextField
          label="Reason code"
          value={draft.reason}
          onChange={set("reason")}
          placeholder="credential_revoked"
          maxLength={100}
          list="reason-codes"
        >
          <datalist id="reason-codes">
            {KNOWN_REASON_CODES.map((code) => (
              <option key={code} value={code} />
            ))}
          </datalist>
        </TextField>
        <DayRangeFields
          labels={["Created from (on or after)", "Created to (up to and including)"]}
          from={draft.from}
          to={draft.to}
          onFrom={set("from")}
          onTo={set("to")}
        />
      </FilterForm>
      <PagedTable
        list={list}
        caption="Verification sessions, newest first"
        noun={{ one: "session", other: "sessions" }}
        empty={filters.filtered ? "No sessions match these filters." : "No verification sessions yet."}
        rowKey={(s) => s.id}
        rowTestId={(s) => `verification-session-${s.id}`}
        testId="verification-sessions"
        columns={[
          {
            header: "Created",
            cell: (s) => <Time at={s.createdAt} />,
          },
          { header: "Status", cell: (s) => <Badge value={s.status} /> },
          { header: "Policy", cell: (s) => <code>{s.policy}</code> },
          { header: "Outcome", cell: (s) => outcomeSummary(s) },
          {
            header: "Session",
            cell: (s) => (
              <Link href={`/verifications/${encodeURIComponent(s.id)}`}>
                <code>{s.id}</code>
              </Link>
            ),
          },
        ]}
      />
    </>
  );
}
