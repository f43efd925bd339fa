/**
 * A span around one outbound HTTP request (a webhook delivery, a fetch through the outbound guard),
 * made by the server's tracing under the span of the request or webhook attempt it serves: `run` gets
 * the headers that carry that span to the other side (W3C `traceparent`), `statusOf` tells the span the
 * answer's status. The server passes one per request in `AppDeps.outboundTrace`; without tracing there
 * is none, and callers send as they are.
 */
export type OutboundTracer = <T>(
  method: string,
  url: URL,
  run: (traceHeaders: Record<string, string>) => Promise<T>,
  statusOf?: (result: T) => number | undefined,
) => Promise<T>;
