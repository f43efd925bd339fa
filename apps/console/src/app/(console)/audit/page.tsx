"use client";
import { AUDIT_OUTCOMES, type TAuditEvent, type TListAuditEventsRequest } from "@cred/contracts/audit-events";
import { Fragment } from "react";
import { PagedTable } from "../../../components/data-table";
import { FilterField, TextField } from "../../../components/form-fields";
import { Time } from "../../../components/record-choices";
import { DayRangeFields, FilterForm, RecordListPage } from "../../../components/record-list";
import { Badge, PageHeader } from "../../../components/status";
import { useCursorPages, usePageSize } from "../../../lib/paging";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";
import { dayRange, type FilterValues, isDay, oneOf, useUrlFilters } from "../../../lib/url-filters";

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
 * The filters as the URL holds them (`/audit?operation=Issuers_Create&outcome=refused&from=2026-11-01`); the
 * dates are calendar days in the viewer's time zone.
 */
const FILTERS = ["operation", "actorId", "targetId", "outcome", "from", "to"] as const;
type Filters = FilterValues<(typeof FILTERS)[number]>;

/** AuditEvents_List's input for these filters: `to` up to and including its day. */
function toQuery(f: Filters): Omit<TListAuditEventsRequest, "limit" | "cursor"> {
  const { from, to } = dayRange(f.from, f.to);
  return {
    ...(f.operation && { operation: f.operation }),
    ...(f.actorId && { actorId: f.actorId }),
    ...(f.targetId && { targetId: f.targetId }),
    ...(f.outcome && { outcome: f.outcome as Outcome }),
    ...(from && { from }),
    ...(to && { to }),
  };
}

export default function AuditPage() {
  return (
    <RecordListPage
      scope="audit.read"
      title="Audit"
      refusal="Only administrators read the audit trail (it names people and addresses)."
      list={AuditTrail}
    />
  );
}

function AuditTrail() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const pageSize = usePageSize();
  const filters = useUrlFilters(FILTERS, { outcome: oneOf(AUDIT_OUTCOMES), from: isDay, to: isDay });
  const { draft, set } = filters;
  const query = toQuery(filters.applied);
  const list = useCursorPages({
    queryKey: trpc.auditEvents.list.infiniteQueryKey({ limit: pageSize, ...query }),
    fetchPage: (cursor, signal) =>
      client.auditEvents.list.query({ limit: pageSize, cursor, ...query }, { signal }),
  });

  return (
    <>
      <PageHeader title="Audit">
        Every state-changing call in this environment, newest first: who made it, on what, and how it ended.
        Each event is sealed into the tenant&apos;s hash chain, so an altered or removed event shows.
      </PageHeader>
      <FilterForm id="audit-filters" filters={filters}>
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
          value={draft.outcome as "" | Outcome}
          onChange={set("outcome")}
          options={AUDIT_OUTCOMES}
        />
        <DayRangeFields
          labels={["From (on or after)", "To (up to and including)"]}
          from={draft.from}
          to={draft.to}
          onFrom={set("from")}
          onTo={set("to")}
        />
      </FilterForm>
      <PagedTable
        list={list}
        caption="Audit events, newest first"
        noun={{ one: "event", other: "events" }}
        empty={filters.filtered ? "No events match these filters." : "No events yet."}
        rowKey={(e) => e.id}
        rowTestId={(e) => `audit-event-${e.id}`}
        testId="audit-events"
        columns={[
          {
            header: "Time",
            cell: (e) => <Time at={e.occurredAt} />,
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
