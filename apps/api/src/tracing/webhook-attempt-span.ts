import type { ClaimedDelivery } from "@cred/core";
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { inSpan, TraceScope } from "./trace-scope";

/**
 * Runs one webhook attempt in a span `webhook attempt` (a trace of its own: the event was written by an
 * earlier request, whose trace is not kept with it). `attempt` gets the attempt's trace scope, whose
 * deps (`scope.depsOf`) make its statements and its POST to the receiver children of the span, the POST
 * carrying the span's `traceparent`; without tracing, or when the sampler drops the attempt's trace, it
 * gets none.
 */
export function traceAttempt<T>(
  delivery: ClaimedDelivery,
  attempt: (scope: TraceScope | undefined) => Promise<T>,
): Promise<T> {
  const tracer = trace.getTracer("@cred/api");
  const span = tracer.startSpan("webhook attempt", { kind: SpanKind.INTERNAL }, ROOT_CONTEXT);
  // Without tracing (the no-op tracer) and for an attempt the sampler drops alike, it goes on untraced:
  // a dropped trace's ids are recorded nowhere, so its POST carries no traceparent either.
  if (!span.isRecording()) return attempt(undefined);
  span.setAttributes({
    "webhook.delivery_id": delivery.id,
    "webhook.subscription_id": delivery.subscriptionId,
    "webhook.event_type": delivery.eventType,
    "webhook.attempt": delivery.attempts + 1,
  });
  const scope = new TraceScope(tracer, span, ROOT_CONTEXT);
  return inSpan(span, async () => {
    const result = await attempt(scope);
    span.setAttribute("webhook.result", String(result));
    return result;
  });
}
