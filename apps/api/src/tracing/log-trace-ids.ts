import { isSpanContextValid, trace } from "@opentelemetry/api";

/**
 * A pino mixin: the active span's trace and span ids on each log line (beside the request id), so a log
 * line leads to its trace. Installed only when tracing is on.
 */
export function traceIdsOfActiveSpan(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  // A request left untraced (a probe) still has a span, with zero ids.
  if (!isSpanContextValid(context)) return {};
  const { traceId, spanId } = context;
  return { trace_id: traceId, span_id: spanId };
}
