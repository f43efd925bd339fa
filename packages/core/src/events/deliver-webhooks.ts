import { webhookBody } from "@cred/contracts/webhook-event-catalogue";
import type { Database } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { CoreConfig } from "../shared/context";
import { newId } from "../shared/ids";
import { type DomainMetrics, type WebhookAttemptClass, webhookAttemptClass } from "../shared/metrics";
import { assertPublicHttpsUrl, UrlPolicyViolation } from "../shared/network-policy";
import type { OutboundTracer } from "../shared/outbound-trace";
import type { SecretBox } from "../shared/secret-box";
import { isRawUniqueViolation } from "../shared/sql-errors";
import { livePreviousSecrets, webhookUrlPolicy } from "../webhooks";
import { type DeliveryOptions, laterRetry, nextAttemptAt, retryAfterMs } from "./delivery-options";
import { type ClaimedDelivery, eventsRepository } from "./events-repository";
import { postWebhook } from "./post-webhook";
import { signWebhook } from "./sign-webhook";
import { WEBHOOK_CONNECTION_POOLS, WebhookConnections } from "./webhook-connections";

export interface DeliveryDeps {
  database: Database;
  config: Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">;
  secretBox: SecretBox;
  /** The server's caches: the keep-alive pools of webhook attempts are there (WEBHOOK_CONNECTION_POOLS). */
  caches: Caches;
  /** Attempt latency and result class for the server's metrics (absent: not counted). */
  metrics?: Pick<DomainMetrics, "webhookAttempt">;
  /** The attempt's span for the POST, and its `traceparent` on it (shared/outbound-trace.ts). */
  outboundTrace?: OutboundTracer;
}

export type AttemptResult =
  | "succeeded"
  | "retrying"
  | "failed"
  | "disabled"
  | "skipped" // subscription deleted or disabled: closed without an attempt
  | "superseded" // another worker recorded this attempt first (our lease had run out)
  | "abandoned"; // the worker stopped mid-attempt; the lease lets another worker retry

/** Reserves up to `batchSize` due deliveries for this worker (lease `leaseMs`). */
export function claimDueDeliveries(
  deps: { database: Database },
  options: Pick<DeliveryOptions, "batchSize" | "leaseMs">,
  now = new Date(),
): Promise<ClaimedDelivery[]> {
  return eventsRepository.claimDue(
    deps.database.root,
    now,
    new Date(now.getTime() + options.leaseMs),
    options.batchSize,
  );
}

const GONE_REASON = "The endpoint answered 410 Gone.";
/** How long an endpoint may fail every delivery before a delivery that fails for good disables it. */
const FAILING_FOR_MS = 5 * 24 * 3600_000;
const FAILING_REASON =
  "Every delivery failed for 5 days: the last one used up its retries and none succeeded in that time.";

/**
 * Makes the next attempt of a claimed delivery (its subscription and event as the claim read them):
 * re-checks the URL against private ranges (pinning the resolved addresses), signs the body with the
 * current and, during an overlap, the previous secret, POSTs with a timeout, and records the attempt
 * and the delivery's new state in one statement.
 * 2xx → succeeded; 410 → failed and the subscription disabled; anything else → retry per schedule, later
 * when the receiver's `Retry-After` asks for a longer wait (at most a day). A delivery that uses up its
 * retries also disables a subscription at least 5 days old none of whose deliveries succeeded in 5 days.
 */
export async function deliverWebhook(
  deps: DeliveryDeps,
  delivery: ClaimedDelivery,
  options: DeliveryOptions,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const db = deps.database.root;
  const { subscription, event } = delivery;
  if (!subscription || subscription.deletedAt || subscription.status !== "active") {
    const why = !subscription || subscription.deletedAt ? "deleted" : "disabled";
    await eventsRepository.closeWithoutAttempt(
      db,
      delivery.id,
      delivery.attempts,
      `Not attempted: the subscription is ${why}.`,
    );
    return "skipped";
  }
  if (!event) {
    await eventsRepository.closeWithoutAttempt(
      db,
      delivery.id,
      delivery.attempts,
      "The event no longer exists.",
    );
    return "skipped";
  }

  const attemptNumber = delivery.attempts + 1;
  const startedAt = new Date();
  let status: number | null = null;
  let retryAfter: string | undefined;
  let error: string | null = null;
  let failure: "timeout" | "network" | "refused" | undefined;
  try {
    const { url, addresses } = await assertPublicHttpsUrl(subscription.url, {
      ...webhookUrlPolicy(deps.config),
      lookup: options.lookup,
    });
    const body = webhookBody(event);
    const now = new Date();
    const headers = signWebhook(
      {
        current: deps.secretBox.open(subscription.secretCipher, subscription.id),
        previous: livePreviousSecrets(subscription.previousSecrets, now).map((p) =>
          deps.secretBox.open(p.cipher, subscription.id),
        ),
      },
      event.id,
      body,
      now,
    );
    const post = (traceHeaders: Record<string, string> = {}) =>
      postWebhook(url, addresses, { ...traceHeaders, ...headers }, body, {
        timeoutMs: options.attemptTimeoutMs,
        connections: new WebhookConnections(deps.caches.of(WEBHOOK_CONNECTION_POOLS)),
        signal,
      });
    const outcome = deps.outboundTrace
      ? await deps.outboundTrace("POST", url, post, (o) => (o.kind === "response" ? o.status : undefined))
      : await post();
    if (outcome.kind === "aborted") return "abandoned";
    if (outcome.kind === "response") ({ status, retryAfter } = outcome);
    else {
      error = outcome.error;
      failure = outcome.timedOut ? "timeout" : "network";
    }
  } catch (e) {
    if (!(e instanceof UrlPolicyViolation)) throw e;
    error = `Refused before connecting: ${e.message}`;
    failure = "refused";
  }
  if (signal?.aborted) return "abandoned";

  const finishedAt = new Date();
  const attemptClass: WebhookAttemptClass = webhookAttemptClass(
    status !== null ? { status } : { error: failure ?? "network" },
  );
  deps.metrics?.webhookAttempt((finishedAt.getTime() - startedAt.getTime()) / 1000, attemptClass);
  const ok = status !== null && status >= 200 && status < 300;
  const gone = status === 410;
  if (status !== null && !ok) error = gone ? GONE_REASON : `The endpoint answered ${status}.`;
  const retryAt =
    ok || gone
      ? null
      : laterRetry(
          nextAttemptAt(attemptNumber, options, finishedAt),
          retryAfterMs(retryAfter, finishedAt),
          finishedAt,
        );
  const result: AttemptResult = ok ? "succeeded" : gone ? "disabled" : retryAt ? "retrying" : "failed";

  try {
    const recorded = await eventsRepository.recordAttempt(
      db,
      {
        id: newId("wha"),
        deliveryId: delivery.id,
        attemptNumber,
        startedAt,
        durationMs: finishedAt.getTime() - startedAt.getTime(),
        responseStatus: status,
        error,
      },
      {
        status: ok ? "succeeded" : retryAt ? "pending" : "failed",
        nextAttemptAt: retryAt,
        recordedAt: finishedAt,
        ...(gone
          ? { disable: { subscriptionId: subscription.id, reason: GONE_REASON } }
          : result === "failed"
            ? {
                // Standard Webhooks: an endpoint that has failed everything for days is disabled.
                disable: {
                  subscriptionId: subscription.id,
                  reason: FAILING_REASON,
                  noSuccessSince: new Date(finishedAt.getTime() - FAILING_FOR_MS),
                },
              }
            : {}),
      },
    );
    return recorded ? result : "superseded";
  } catch (e) {
    if (isRawUniqueViolation(e)) return "superseded";
    throw e;
  }
}
