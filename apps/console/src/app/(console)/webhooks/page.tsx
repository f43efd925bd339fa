"use client";
import { WEBHOOK_EVENT_TYPES } from "@cred/contracts/webhook-events";
import { DELIVERY_STATUSES } from "@cred/contracts/webhooks";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { CheckboxGrid, FilterField, SubmitButton, TextField } from "../../../components/form-fields";
import { SecretOnce } from "../../../components/secret-once";
import { useCan } from "../../../components/session";
import { Badge, ErrorAlert, PageHeader } from "../../../components/status";
import { useNewestFirst, usePageSize } from "../../../lib/paging";
import { useRefresh } from "../../../lib/refresh";
import { useAllResourceItems, useResourcePages } from "../../../lib/resource-lists";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";
import { WebhookEditForm } from "./webhook-edit-form";

type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Deliveries the log holds at most (the newest ones). */
const MAX_LOG_ITEMS = 1000;

export default function WebhooksPage() {
  const trpc = useTRPC();
  const canManage = useCan("webhooks.manage");
  const client = useTRPCClient();
  const pageSize = usePageSize();
  const list = useResourcePages("webhooks");
  // Every subscription's URL for the delivery log, whichever page of the table it is on.
  const allSubscriptions = useAllResourceItems("webhooks");
  // The log's filters, as Webhooks_ListDeliveries takes them (empty: all).
  const [filterSubscription, setFilterSubscription] = useState("");
  const [filterStatus, setFilterStatus] = useState<"" | (typeof DELIVERY_STATUSES)[number]>("");
  const [filterEvent, setFilterEvent] = useState<"" | EventType>("");
  const filters = {
    ...(filterSubscription && { subscriptionId: filterSubscription }),
    ...(filterStatus && { status: filterStatus }),
    ...(filterEvent && { eventType: filterEvent }),
  };
  // The procedure lists oldest first: walk to the end and show the newest first (see README).
  const deliveries = useNewestFirst({
    queryKey: trpc.webhookDeliveries.list.queryKey({ limit: pageSize, ...filters }),
    fetchPage: (cursor, signal) =>
      client.webhookDeliveries.list.query({ limit: pageSize, cursor, ...filters }, { signal }),
    pageSize,
    maxItems: MAX_LOG_ITEMS,
    refetchInterval: 3_000,
  });
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [allEvents, setAllEvents] = useState(true);
  const [events, setEvents] = useState<EventType[]>([]);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const refresh = useRefresh("webhooks");
  const [editing, setEditing] = useState<string | null>(null);
  const edited = list.items.find((s) => s.id === editing);

  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async (result) => {
        setSecret({ label: "Signing secret of the new webhook", value: result.data.secret });
        setUrl("");
        setDescription("");
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ onSuccess: refresh }));
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: (result) =>
        setSecret({ label: `New signing secret for ${result.data.url}`, value: result.data.secret }),
    }),
  );
  const refreshDeliveries = useRefresh("webhookDeliveries");
  const redeliver = useMutation(
    trpc.webhookDeliveries.redeliver.mutationOptions({ onSuccess: refreshDeliveries }),
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ url, description: description || null, events: allEvents ? ["*"] : events });
  };

  const urlOf = new Map((allSubscriptions.data?.items ?? []).map((s) => [s.id, s.url]));
  const activeSubscriptions = new Set(
    (allSubscriptions.data?.items ?? []).filter((s) => s.status === "active").map((s) => s.id),
  );

  return (
    <>
      <PageHeader title="Webhooks">
        Events are delivered as Standard Webhooks, signed with the subscription&apos;s secret.
      </PageHeader>
      {secret && <SecretOnce label={secret.label} value={secret.value} onDismiss={() => setSecret(null)} />}
      <ErrorAlert error={remove.error} title="Could not delete the webhook" />
      <ErrorAlert error={rotate.error} title="Could not rotate the secret" />
      <PagedTable
        list={list}
        caption="Webhook subscriptions"
        noun={{ one: "webhook subscription", other: "webhook subscriptions" }}
        empty="No webhook subscriptions yet."
        rowKey={(s) => s.id}
        columns={[
          {
            header: "URL",
            cell: (s) => (
              <>
                <code>{s.url}</code>
                {s.description && <div className="hint">{s.description}</div>}
              </>
            ),
          },
          { header: "Events", cell: (s) => s.events.join(", ") },
          {
            header: "Status",
            cell: (s) => (
              <>
                <Badge value={s.status} />
                {s.disabledReason && <div className="hint">{s.disabledReason}</div>}
              </>
            ),
          },
          canManage && {
            header: "Actions",
            hideHeader: true,
            cell: (s) => (
              <div className="actions">
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Edit webhook ${s.url}`}
                  onClick={() => setEditing(s.id)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Rotate the secret of webhook ${s.url}`}
                  disabled={rotate.isPending}
                  onClick={() => {
                    if (
                      window.confirm(
                        `Rotate the signing secret of ${s.url}? For one day deliveries carry signatures with both the old and the new secret, so the receiver can switch over.`,
                      )
                    )
                      rotate.mutate({ subscriptionId: s.id, overlapSeconds: 86_400 });
                  }}
                >
                  Rotate secret
                </button>
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Delete webhook ${s.url}`}
                  disabled={remove.isPending}
                  onClick={() => {
                    if (window.confirm(`Delete the webhook to ${s.url}?`))
                      remove.mutate({ subscriptionId: s.id });
                  }}
                >
                  Delete
                </button>
              </div>
            ),
          },
        ]}
      />
      {canManage && edited && (
        <WebhookEditForm key={edited.id} subscription={edited} onDone={() => setEditing(null)} />
      )}

      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-webhook">
          <h2 id="create-webhook">Create a webhook</h2>
          <div className="grid">
            <TextField
              label="Endpoint URL"
              type="url"
              required
              value={url}
              placeholder="https://hooks.example.com/credentials"
              onChange={setUrl}
            />
            <TextField label="Description (optional)" value={description} onChange={setDescription} />
          </div>
          <fieldset>
            <legend>Events</legend>
            <label className="inline">
              <input type="checkbox" checked={allEvents} onChange={(e) => setAllEvents(e.target.checked)} />
              All events
            </label>
            {!allEvents && (
              <CheckboxGrid options={WEBHOOK_EVENT_TYPES} checked={events} onChange={setEvents} />
            )}
          </fieldset>
          <ErrorAlert error={create.error} title="Could not create the webhook" />
          <SubmitButton pending={create.isPending}>Create webhook</SubmitButton>
        </form>
      )}

      <section className="card" aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Delivery log</h2>
        <p className="hint">Refreshes every few seconds.</p>
        <div className="grid" data-testid="delivery-filters">
          <FilterField
            label="Endpoint"
            allLabel="All endpoints"
            value={filterSubscription}
            onChange={setFilterSubscription}
            options={(allSubscriptions.data?.items ?? []).map((sub) => ({ value: sub.id, label: sub.url }))}
          />
          <FilterField
            label="Status"
            allLabel="All statuses"
            value={filterStatus}
            onChange={setFilterStatus}
            options={DELIVERY_STATUSES}
          />
          <FilterField
            label="Event"
            allLabel="All events"
            value={filterEvent}
            onChange={setFilterEvent}
            options={WEBHOOK_EVENT_TYPES}
          />
        </div>
        <ErrorAlert error={redeliver.error} title="Could not redeliver" />
        <PagedTable
          list={deliveries}
          total={deliveries.total}
          moreLabel="Show older deliveries"
          testId="delivery-log"
          caption="Webhook deliveries, newest first"
          noun={{ one: "delivery", other: "deliveries" }}
          empty={
            Object.keys(filters).length
              ? "No deliveries match these filters."
              : "No deliveries yet. Events appear here once something happens."
          }
          rowKey={(d) => d.id}
          columns={[
            {
              header: "Event",
              cell: (d) => (
                <>
                  {d.eventType}
                  <div className="hint">
                    <code>{d.eventId}</code>
                  </div>
                </>
              ),
            },
            {
              header: "Endpoint",
              cell: (d) => {
                const url = urlOf.get(d.subscriptionId);
                if (url) return <code>{url}</code>;
                return (
                  <>
                    <code>{d.subscriptionId}</code>
                    {allSubscriptions.isSuccess && <div className="hint">subscription deleted</div>}
                  </>
                );
              },
            },
            { header: "Status", cell: (d) => <Badge value={d.status} /> },
            { header: "Attempts", cell: (d) => d.attempts },
            {
              header: "Last response",
              cell: (d) => (
                <>
                  {d.lastResponseStatus ?? "—"}
                  {d.lastError && d.status !== "succeeded" && <div className="hint">{d.lastError}</div>}
                  {d.lastAttemptAt && (
                    <div className="hint">{new Date(d.lastAttemptAt).toLocaleString()}</div>
                  )}
                </>
              ),
            },
            canManage && {
              header: "Actions",
              hideHeader: true,
              // Only a live subscription takes a redelivery (the API answers 409 otherwise).
              cell: (d) =>
                activeSubscriptions.has(d.subscriptionId) ? (
                  <button
                    type="button"
                    className="secondary small"
                    disabled={redeliver.isPending}
                    aria-label={`Redeliver ${d.eventType} ${d.id}`}
                    onClick={() => redeliver.mutate({ deliveryId: d.id })}
                  >
                    Redeliver
                  </button>
                ) : null,
            },
          ]}
        />
        {!deliveries.isPending && !deliveries.complete && (
          <p className="hint" role="status">
            Reading newer deliveries…
          </p>
        )}
        {deliveries.droppedOlder && (
          <p className="hint">
            Only the newest {MAX_LOG_ITEMS} deliveries are kept here; list older ones with the Management API
            (<code>GET /management/webhook-deliveries</code>).
          </p>
        )}
      </section>
    </>
  );
}
