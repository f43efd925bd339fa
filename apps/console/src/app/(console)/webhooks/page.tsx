"use client";
import { WEBHOOK_EVENT_TYPES } from "@cred/core/webhooks/webhook-events";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SecretOnce } from "../../../components/secret-once";
import { useCan } from "../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader } from "../../../components/status";
import { useTRPC } from "../../../lib/trpc";

type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export default function WebhooksPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canManage = useCan("webhooks.manage");
  const list = useQuery(trpc.webhooks.list.queryOptions({ limit: 100 }));
  const deliveries = useQuery({
    ...trpc.webhookDeliveries.list.queryOptions({ limit: 100 }),
    refetchInterval: 3_000,
  });
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [allEvents, setAllEvents] = useState(true);
  const [events, setEvents] = useState<EventType[]>([]);
  const [secret, setSecret] = useState<string | null>(null);

  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async (result) => {
        setSecret(result.data.secret);
        setUrl("");
        setDescription("");
        await queryClient.invalidateQueries(trpc.webhooks.pathFilter());
      },
    }),
  );
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.webhooks.pathFilter()),
    }),
  );
  const redeliver = useMutation(
    trpc.webhookDeliveries.redeliver.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.webhookDeliveries.pathFilter()),
    }),
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ url, description: description || null, events: allEvents ? ["*"] : events });
  };

  const subscriptions = list.data?.data ?? [];
  const urlOf = new Map(subscriptions.map((s) => [s.id, s.url]));

  return (
    <>
      <PageHeader title="Webhooks">
        Events are delivered as Standard Webhooks, signed with the subscription&apos;s secret.
      </PageHeader>
      {secret && (
        <SecretOnce
          label="Signing secret of the new webhook"
          value={secret}
          onDismiss={() => setSecret(null)}
        />
      )}
      {list.isPending && <Loading />}
      <ErrorAlert error={list.error} />
      <ErrorAlert error={remove.error} title="Could not delete the webhook" />
      {list.data &&
        (subscriptions.length === 0 ? (
          <Empty>No webhook subscriptions yet.</Empty>
        ) : (
          <table>
            <caption className="visually-hidden">Webhook subscriptions</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                {canManage && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {subscriptions.map((s) => (
                <tr key={s.id}>
                  <td>
                    <code>{s.url}</code>
                    {s.description && <div className="hint">{s.description}</div>}
                  </td>
                  <td>{s.events.join(", ")}</td>
                  <td>
                    <Badge value={s.status} />
                  </td>
                  {canManage && (
                    <td>
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
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        ))}

      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-webhook">
          <h2 id="create-webhook">Create a webhook</h2>
          <div className="grid">
            <label>
              Endpoint URL
              <input
                type="url"
                required
                value={url}
                placeholder="https://hooks.example.com/credentials"
                onChange={(e) => setUrl(e.target.value)}
              />
            </label>
            <label>
              Description (optional)
              <input value={description} onChange={(e) => setDescription(e.target.value)} />
            </label>
          </div>
          <fieldset>
            <legend>Events</legend>
            <label className="inline">
              <input type="checkbox" checked={allEvents} onChange={(e) => setAllEvents(e.target.checked)} />
              All events
            </label>
            {!allEvents && (
              <div className="checkbox-grid">
                {WEBHOOK_EVENT_TYPES.map((type) => (
                  <label key={type} className="inline">
                    <input
                      type="checkbox"
                      checked={events.includes(type)}
                      onChange={(e) =>
                        setEvents(e.target.checked ? [...events, type] : events.filter((t) => t !== type))
                      }
                    />
                    {type}
                  </label>
                ))}
              </div>
            )}
          </fieldset>
          <ErrorAlert error={create.error} title="Could not create the webhook" />
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create webhook"}
          </button>
        </form>
      )}

      <section className="card" aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Delivery log</h2>
        <p className="hint">Refreshes every few seconds.</p>
        {deliveries.isPending && <Loading />}
        <ErrorAlert error={deliveries.error} />
        <ErrorAlert error={redeliver.error} title="Could not redeliver" />
        {deliveries.data &&
          (deliveries.data.data.length === 0 ? (
            <Empty>No deliveries yet. Events appear here once something happens.</Empty>
          ) : (
            <table data-testid="delivery-log">
              <caption className="visually-hidden">Webhook deliveries, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last response</th>
                  {canManage && (
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {[...deliveries.data.data].reverse().map((d) => (
                  <tr key={d.id}>
                    <td>
                      {d.eventType}
                      <div className="hint">
                        <code>{d.eventId}</code>
                      </div>
                    </td>
                    <td>
                      <code>{urlOf.get(d.subscriptionId) ?? d.subscriptionId}</code>
                    </td>
                    <td>
                      <Badge value={d.status} />
                    </td>
                    <td>{d.attempts}</td>
                    <td>
                      {d.lastResponseStatus ?? "—"}
                      {d.lastAttemptAt && (
                        <div className="hint">{new Date(d.lastAttemptAt).toLocaleString()}</div>
                      )}
                    </td>
                    {canManage && (
                      <td>
                        <button
                          type="button"
                          className="secondary small"
                          disabled={redeliver.isPending}
                          aria-label={`Redeliver ${d.eventType} ${d.id}`}
                          onClick={() => redeliver.mutate({ deliveryId: d.id })}
                        >
                          Redeliver
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </section>
    </>
  );
}
