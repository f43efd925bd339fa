"use client";
import { AUDIT_OUTCOMES, type TAuditEvent, type TListAuditEventsRequest } from "@cred/contracts/audit-events";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, Fragment, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { FilterField, SubmitButton, TextField } from "../../../components/form-fields";
import { useCan } from "../../../components/session";
import { Badge, Empty, PageHeader } from "../../../components/status";
import { useCursorPages, usePageSize } from "../../../lib/paging";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";

type Outcome = (typeof AUDIT_OUTCOMES)[number];

/** The integrity state in words (AuditEvents_List's `integrity.state`). */
const INTEGRITY_WORDS: Record<TAuditEvent["integrity"]["state"], string> = {
  intact: "Intact",
  broken: "Broken — altered or removed",
  pending: "Pending seal",
};

const ACTOR_TYPE_WORDS: Record<TAuditEvent["actor"]["type"], string> = {
  apiKey: "API key",
  staff: "Staff user",
  cli: "Operator CLI",
};

/**
 * The filters as the URL holds them (`/audit?operation=Issuers_Create&outcome=refused&from=2026-11-01`),
 * so a filtered view can be reloaded and shared. Dates are calendar days in the viewer's time zone.
 */
interface Filters {
  operation: string;
  actorId: string;
  targetId: string;
  outcome: "" | Outcome;
  from: string;
  to: string;
}
const FILTER_NAMES = ["operation", "actorId", "targetId", "outcome", "from", "to"] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function readFilters(params: URLSearchParams): Filters {
  const get = (name: string) => params.get(name)?.trim() ?? "";
  const outcome = get("outcome");
  const day = (name: string) => (DAY.test(get(name)) ? get(name) : "");
  return {
    operation: get("operation"),
    actorId: get("actorId"),
    targetId: get("targetId"),
    outcome: (AUDIT_OUTCOMES as readonly string[]).includes(outcome) ? (outcome as Outcome) : "",
    from: day("from"),
    to: day("to"),
  };
}

/** The start of a local calendar day (`YYYY-MM-DD`), `plusDays` later, as an ISO time. */
function startOfDay(day: string, plusDays = 0): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plusDays).toISOString();
}

/** The procedure's input for these filters: `from` the start of its day, `to` up to and including its day. */
function toQuery(filters: Filters): Omit<TListAuditEventsRequest, "limit" | "cursor"> {
  return {
    ...(filters.operation && { operation: filters.operation }),
    ...(filters.actorId && { actorId: filters.actorId }),
    ...(filters.targetId && { targetId: filters.targetId }),
    ...(filters.outcome && { outcome: filters.outcome }),
    ...(filters.from && { from: startOfDay(filters.from) }),
    ...(filters.to && { to: startOfDay(filters.to, 1) }),
  };
}

export default function AuditPage() {
  const canRead = useCan("audit.read");
  const search = useSearchParams().toString();
  if (!canRead) {
    return (
      <>
        <PageHeader title="Audit" />
        <Empty>Only administrators read the audit trail (it names people and addresses).</Empty>
      </>
    );
  }
  // Keyed by the URL's filters: the form starts from them again after any navigation (e.g. the nav link).
  return <AuditTrail key={search} />;
}

function AuditTrail() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const pageSize = usePageSize();
  const applied = readFilters(searchParams);
  const [draft, setDraft] = useState<Filters>(applied);
  const set = (name: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));

  const query = toQuery(applied);
  const list = useCursorPages({
    queryKey: trpc.auditEvents.list.infiniteQueryKey({ limit: pageSize, ...query }),
    fetchPage: (cursor, signal) =>
      client.auditEvents.list.query({ limit: pageSize, cursor, ...query }, { signal }),
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
    const none: Filters = { operation: "", actorId: "", targetId: "", outcome: "", from: "", to: "" };
    setDraft(none);
    apply(none);
  };
  const filtered = Object.keys(query).length > 0;

  return (
    <>
      <PageHeader title="Audit">
        Every state-changing call in this environment, newest first: who made it, on what, and how it ended.
        Each event is sealed into the tenant&apos;s hash chain, so an altered or removed event shows.
      </PageHeader>
      <form onSubmit={submit} className="card" aria-labelledby="audit-filters" data-testid="audit-filters">
        <h2 id="audit-filters">Filters</h2>
        <div className="grid">
          <TextField
            label="Operation"
            value={draft.operation}
            onChange={set("operation")}
            placeholder="Organisations_Create"
            maxLength={100}
          />
          <TextField label="Actor id" value={draft.actorId} onChange={set("actorId")} maxLength={64} />
          <TextField label="Target id" value={draft.targetId} onChange={set("targetId")} maxLength={200} />
          <FilterField
            label="Outcome"
            allLabel="All outcomes"
            value={draft.outcome}
            onChange={set("outcome")}
            options={AUDIT_OUTCOMES}
          />
          <TextField label="From (on or after)" type="date" value={draft.from} onChange={set("from")} />
          <TextField
            label="To (up to and including)"
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
        caption="Audit events, newest first"
        noun={{ one: "event", other: "events" }}
        empty={filtered ? "No events match these filters." : "No events yet."}
        rowKey={(e) => e.id}
        rowTestId={(e) => `audit-event-${e.id}`}
        testId="audit-events"
        columns={[
          {
            header: "Time",
            cell: (e) => <time dateTime={e.occurredAt}>{new Date(e.occurredAt).toLocaleString()}</time>,
          },
          {
            header: "Actor",
            cell: (e) => (
              <>
                {e.actor.name ?? e.actor.id ?? "—"}
                <div className="hint">{ACTOR_TYPE_WORDS[e.actor.type]}</div>
              </>
            ),
          },
          { header: "Operation", cell: (e) => <code>{e.operation}</code> },
          {
            header: "Target",
            cell: (e) =>
              e.target.type || e.target.id ? (
                <>
                  {e.target.type ?? "—"}
                  {e.target.id && (
                    <div className="hint">
                      <code>{e.target.id}</code>
                    </div>
                  )}
                </>
              ) : (
                "—"
              ),
          },
          {
            header: "Outcome",
            cell: (e) => (
              <>
                <Badge value={e.outcome} />
                <div className="hint">HTTP {e.status}</div>
              </>
            ),
          },
          { header: "Request id", cell: (e) => <code>{e.requestId}</code> },
          {
            header: "Integrity",
            cell: (e) => (
              <span className={`integrity integrity-${e.integrity.state}`}>
                {INTEGRITY_WORDS[e.integrity.state]}
              </span>
            ),
          },
          { header: "Details", hideHeader: true, cell: (e) => <EventDetails event={e} /> },
        ]}
      />
    </>
  );
}

/** A value of the summary as text: strings as they are, anything else as JSON. */
const showValue = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** One event's disclosure: what the call carried, where it came from, and its place in the hash chain. */
function EventDetails({ event }: { event: TAuditEvent }) {
  const values = Object.entries(event.summary.values);
  return (
    <details className="audit-details">
      <summary>
        Details<span className="visually-hidden"> of {event.operation}</span>
      </summary>
      <dl className="facts">
        <dt>Event id</dt>
        <dd>
          <code>{event.id}</code>
        </dd>
        <dt>Actor id</dt>
        <dd>{event.actor.id ? <code>{event.actor.id}</code> : "—"}</dd>
        <dt>Fields sent</dt>
        <dd>{event.summary.fields.length ? <code>{event.summary.fields.join(", ")}</code> : "none"}</dd>
        <dt>Values</dt>
        <dd>
          {values.length ? (
            <dl className="facts">
              {values.map(([name, value]) => (
                <Fragment key={name}>
                  <dt>
                    <code>{name}</code>
                  </dt>
                  <dd>
                    <code>{showValue(value)}</code>
                  </dd>
                </Fragment>
              ))}
            </dl>
          ) : (
            "none recorded"
          )}
        </dd>
        <dt>Source address</dt>
        <dd>{event.sourceAddress ? <code>{event.sourceAddress}</code> : "—"}</dd>
        <dt>Client request id</dt>
        <dd>{event.clientRequestId ? <code>{event.clientRequestId}</code> : "—"}</dd>
        <dt>Chain position</dt>
        <dd>{event.sequence ?? "not sealed yet"}</dd>
        <dt>Hash</dt>
        <dd>{event.integrity.hash ? <code className="hash">{event.integrity.hash}</code> : "—"}</dd>
        <dt>Previous hash</dt>
        <dd>
          {event.integrity.previousHash ? <code className="hash">{event.integrity.previousHash}</code> : "—"}
        </dd>
      </dl>
    </details>
  );
}
