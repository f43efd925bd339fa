import type { ClaimedDelivery } from "@cred/core";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

const tracer = trace.getTracer("@cred/api");

/**
 * Runs one webhook attempt in a span `webhook attempt` (a trace of its own: the event was written by an
 * earlier request, whose trace is not kept with it). Its statements and the POST to the receiver are
 * children, and the POST carries the span's `traceparent`. Without tracing the span is the API's no-op.
 */
export function traceAttempt<T>(delivery: ClaimedDelivery, attempt: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    "webhook attempt",
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        "webhook.delivery_id": delivery.id,
        "webhook.subscription_id": delivery.subscriptionId,
        "webhook.event_type": delivery.eventType,
        "webhook.attempt": delivery.attempts + 1,
      },
    },
    async (span) => {
      try {
        const result = await attempt();
        span.setAttribute("webhook.result", String(result));
        return result;
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
