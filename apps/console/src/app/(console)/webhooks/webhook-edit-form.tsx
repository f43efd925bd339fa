"use client";
import { WEBHOOK_EVENT_TYPES } from "@cred/contracts/webhook-events";
import { type TWebhookSubscription, ZUpdateWebhookRequest } from "@cred/contracts/webhooks";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { EditFormFooter } from "../../../components/edit-form-footer";
import { CheckboxGrid, ChoiceField, TextField } from "../../../components/form-fields";
import { type FormIssue, formIssuesOf } from "../../../components/form-issues";
import { useRefresh } from "../../../lib/refresh";
import { useTRPC } from "../../../lib/trpc";

type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * Webhooks_Update: URL, events, description and status; only what changed is sent. The secret is not
 * edited here (Rotate secret). The server checks a new URL as on create (public https only).
 */
export function WebhookEditForm({
  subscription,
  onDone,
}: {
  subscription: TWebhookSubscription;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefresh("webhooks");
  const update = useMutation(trpc.webhooks.update.mutationOptions({ onSuccess: refresh }));
  const subscribedToAll = subscription.events.includes("*");
  const [url, setUrl] = useState(subscription.url);
  const [description, setDescription] = useState(subscription.description ?? "");
  const [allEvents, setAllEvents] = useState(subscribedToAll);
  const [events, setEvents] = useState<EventType[]>(
    subscribedToAll ? [] : (subscription.events as EventType[]),
  );
  const [status, setStatus] = useState(subscription.status);
  const [issues, setIssues] = useState<FormIssue[]>([]);

  const chosenEvents = allEvents ? ["*"] : events;
  const changes = {
    ...(url !== subscription.url && { url }),
    ...(description !== (subscription.description ?? "") && { description: description || null }),
    ...(!sameList([...chosenEvents].sort(), [...subscription.events].sort()) && { events: chosenEvents }),
    ...(status !== subscription.status && { status }),
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = ZUpdateWebhookRequest.safeParse({ subscriptionId: subscription.id, ...changes });
    if (!parsed.success) {
      setIssues(formIssuesOf(parsed.error.issues));
      return;
    }
    setIssues([]);
    update.mutate(parsed.data);
  };

  return (
    <form onSubmit={submit} className="card" aria-labelledby="edit-webhook" noValidate>
      <h2 id="edit-webhook">Edit webhook</h2>
      <p className="hint">
        The signing secret stays as it is; use Rotate secret to replace it. Deliveries still pending go to a
        new URL from their next attempt.
      </p>
      <div className="grid">
        <TextField label="Endpoint URL (https)" type="url" required value={url} onChange={setUrl} />
        <TextField label="Description (optional)" value={description} onChange={setDescription} />
        <ChoiceField
          label="Status"
          value={status}
          onChange={(value) => setStatus(value as TWebhookSubscription["status"])}
          choices={[
            { value: "active", label: "Active: receives events" },
            { value: "disabled", label: "Disabled: receives nothing" },
          ]}
        />
      </div>
      {subscription.disabledReason && <p className="hint">Disabled because: {subscription.disabledReason}</p>}
      <fieldset>
        <legend>Events</legend>
        <label className="inline">
          <input type="checkbox" checked={allEvents} onChange={(e) => setAllEvents(e.target.checked)} />
          Every event (<code>*</code>)
        </label>
        {!allEvents && <CheckboxGrid options={WEBHOOK_EVENT_TYPES} checked={events} onChange={setEvents} />}
      </fieldset>
      <EditFormFooter
        noun="webhook"
        issues={issues}
        update={update}
        changed={Object.keys(changes).length > 0}
        saved={update.isSuccess && <>Webhook {update.data.data.url} updated.</>}
        onDone={onDone}
      />
    </form>
  );
}
