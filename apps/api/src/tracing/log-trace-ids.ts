import { isSpanContextValid, type Span } from "@opentelemetry/api";

const SPAN = Symbol("traced span");

/**
 * Sets the span a logger logs for (a request's child logger, request-spans.ts): its lines and those of
 * its children (pino makes a child with the parent as prototype) carry the span's ids. No async
 * context is needed to find it.
 */
export function setLoggerSpan(logger: object, span: Span) {
  (logger as { [SPAN]?: Span })[SPAN] = span;
}

/**
 * A pino mixin: the trace and span ids of the span its logger logs for on each log line (beside the
 * request id), so a log line leads to its trace. Installed only when tracing is on; pino passes the
 * logger that writes the line.
 */
export function traceIdsOfLogger(
  _merge: object,
  _level: number,
  logger: object,
): { trace_id?: string; span_id?: string } {
  const span = (logger as { [SPAN]?: Span })[SPAN];
  if (!span) return {};
  const context = span.spanContext();
  // A caller's trace that is not sampled still has its ids (the caller made them and passes them on):
  // they are logged too. A trace this server would start and does not sample gets no span here at all.
  if (!isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
