"use client";
import {
  type TListVerificationSessionsRequest,
  type TVerificationSession,
  VERIFICATION_SESSION_STATUSES,
  type VerificationSessionStatus,
} from "@cred/contracts/verification-sessions";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { FilterField, SubmitButton, TextField } from "../../../components/form-fields";
import { useCan } from "../../../components/session";
import { Badge, Empty, PageHeader } from "../../../components/status";
import { useCursorPages, usePageSize } from "../../../lib/paging";
import { useAllResourceItems } from "../../../lib/resource-lists";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";
import { KNOWN_REASON_CODES, reasonSentence } from "../../../lib/verification-words";

/**
 * The filters as the URL holds them (`/verifications?status=rejected&policy=over-18&from=2026-11-01`), so a
 * filtered view can be reloaded and shared. Dates are calendar days in the viewer's time zone.
 */
interface Filters {
  status: "" | VerificationSessionStatus;
  policy: string;
  reason: string;
  from: string;
  to: string;
}
const FILTER_NAMES = ["status", "policy", "reason", "from", "to"] as const;
const NO_FILTERS: Filters = { status: "", policy: "", reason: "", from: "", to: "" };
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function readFilters(params: URLSearchParams): Filters {
  const get = (name: string) => params.get(name)?.trim() ?? "";
  const status = get("status");
  const day = (name: string) => (DAY.test(get(name)) ? get(name) : "");
  return {
    status: (VERIFICATION_SESSION_STATUSES as readonly string[]).includes(status)
      ? (status as VerificationSessionStatus)
      : "",
    policy: get("policy"),
    reason: get("reason"),
    from: day("from"),
    to: day("to"),
  };
}

/** The start of a local calendar day (`YYYY-MM-DD`), `plusDays` later, as an ISO time. */
function startOfDay(day: string, plusDays = 0): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plusDays).toISOString();
}

/** VerificationSessions_List's input: `from` the start of its day, `to` up to and including its day. */
function toQuery(filters: Filters): Omit<TListVerificationSessionsRequest, "limit" | "cursor"> {
  return {
    ...(filters.status && { status: filters.status }),
    ...(filters.policy && { policy: filters.policy }),
    ...(filters.reason && { reason: filters.reason }),
    ...(filters.from && { createdFrom: startOfDay(filters.from) }),
    ...(filters.to && { createdTo: startOfDay(filters.to, 1) }),
  };
}

export default function VerificationsPage() {
  const canRead = useCan("verification.read");
  const search = useSearchParams().toString();
  if (!canRead) {
    return (
      <>
        <PageHeader title="Verifications" />
        <Empty>Your role cannot read verification sessions.</Empty>
      </>
    );
  }
  // Keyed by the URL's filters: the form starts from them again after any navigation (e.g. the nav link).
  return <VerificationSessions key={search} />;
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
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const pageSize = usePageSize();
  const policies = useAllResourceItems("verificationPolicies");
  const applied = readFilters(searchParams);
  const [draft, setDraft] = useState<Filters>(applied);
  const set = (name: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));

  const query = toQuery(applied);
  const list = useCursorPages({
    queryKey: trpc.verifications.listSessions.infiniteQueryKey({ limit: pageSize, ...query }),
    fetchPage: (cursor, signal) =>
      client.verifications.listSessions.query({ limit: pageSize, cursor, ...query }, { signal }),
  });

  /** Puts the filters into the URL (keeping `pageSize`), which re-queries the list. */
  const apply = (filters: Filters) => {
    const params = new URLSearchParams();
    const size = searchParams.get("pageSize");
    if (size) params.set("pageSize", size);
    for (const name of FILTER_NAMES) if (filters[name].trim()) params.set(name, filters[name].trim());
    const search = params.toString();
    router.replace(search ? `${pathname}?${search}` : pathname);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(draft);
  };
  const clear = () => {
    setDraft(NO_FILTERS);
    apply(NO_FILTERS);
  };
  const filtered = Object.keys(query).length > 0;
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
      <form
        onSubmit={submit}
        className="card"
        aria-labelledby="verification-filters"
        data-testid="verification-filters"
      >
        <h2 id="verification-filters">Filters</h2>
        <div className="grid">
          <FilterField
            label="Status"
            allLabel="All statuses"
            value={draft.status}
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
          <TextField
            label="Created from (on or after)"
            type="date"
            value={draft.from}
            onChange={set("from")}
          />
          <TextField
            label="Created to (up to and including)"
            type="date"
            value={draft.to}
            min={draft.from || undefined}
            onChange={set("to")}
          />
        </div>
        <div className="actions">
          <SubmitButton pending={false}>Apply filters</SubmitButton>
          <button type="button" className="secondary" onClick={clear} disabled={!filtered}>
            Clear filters
          </button>
        </div>
      </form>
      <PagedTable
        list={list}
        caption="Verification sessions, newest first"
        noun={{ one: "session", other: "sessions" }}
        empty={filtered ? "No sessions match these filters." : "No verification sessions yet."}
        rowKey={(s) => s.id}
        rowTestId={(s) => `verification-session-${s.id}`}
        testId="verification-sessions"
        columns={[
          {
            header: "Created",
            cell: (s) => <time dateTime={s.createdAt}>{new Date(s.createdAt).toLocaleString()}</time>,
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
