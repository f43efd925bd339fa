import type { AppDeps, OutboundTracer } from "@cred/core";
import { type StatementTracer, tracedUnitOfWork } from "@cred/db";
import {
  type Attributes,
  type Context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { outgoingUrlFull } from "./span-urls";

/** Marks a span failed with the error that ended its work. */
export function failSpan(span: Span, error: unknown) {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs `run` in `span` and ends the span as its promise settles (failed, with the error, if it rejects). */
export function inSpan<T>(span: Span, run: () => Promise<T>): Promise<T> {
  let result: Promise<T>;
  try {
    result = run();
  } catch (error) {
    failSpan(span, error);
    span.end();
    return Promise.reject(error);
  }
  return result.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    },
  );
}

/**
 * Where one piece of work's spans hang (a request, a webhook attempt): its own span, and while a wallet
 * step runs, the step's. The parent is held here and handed down explicitly (the per-request deps below
 * carry it to every statement and outbound request), not read from an async context: on Node 20 that
 * context (AsyncLocalStorage) puts a hook on every promise of the process, most of what tracing cost
 * (docs/adr/0022-tracing-start.md). Work under a span that is not recorded (not sampled) makes no spans
 * of its own: the sampler decides once, for the request.
 */
export class TraceScope {
  private deps: AppDeps | undefined;
  private depsOfBase: AppDeps | undefined;
  private current: Context | undefined;
  /**
   * Whether spans made under this scope are recorded: the root span's sampling decision, taken once (the
   * sampler decides for the request, and every span under it follows).
   */
  readonly recording: boolean;

  constructor(
    readonly tracer: Tracer,
    /** The scope's own span: a request's server span, a webhook attempt's span. */
    readonly root: Span,
    /** The context the root span was started in (the caller's, from a `traceparent`, or the root context). */
    private readonly base: Context,
  ) {
    this.recording = root.isRecording();
  }

  /**
   * The context new spans are children of: the root span's until a wallet step sets its own. Made on first
   * use, so a request that is not sampled and makes no outbound request never copies a context.
   */
  get parent(): Context {
    this.current ??= trace.setSpan(this.base, this.root);
    return this.current;
  }

  set parent(context: Context) {
    this.current = context;
  }

  /** A span under the current parent. */
  startSpan(name: string, kind: SpanKind, attributes?: Attributes): Span {
    return this.tracer.startSpan(name, { kind, attributes }, this.parent);
  }

  /** A span per statement: `pg.query:SELECT` (SQL the unit sees), `prisma:Model.operation` (model calls). */
  readonly statement: StatementTracer = (statement, run) => {
    if (!this.recording) return run();
    const { text, operation, collection } = statement;
    const span = this.startSpan(
      text === undefined ? `prisma:${collection}.${operation}` : `pg.query:${operation}`,
      SpanKind.CLIENT,
      {
        "db.system.name": "postgresql",
        "db.operation.name": operation,
        ...(collection !== undefined && { "db.collection.name": collection }),
        // The text with its placeholders ($1, …): the values bound to them are never recorded.
        ...(text !== undefined && { "db.query.text": text }),
      },
    );
    return inSpan(span, run);
  };

  /** A client span per outbound request, its `traceparent` on the request (a caller's unsampled one too). */
  readonly outbound: OutboundTracer = async (method, url, run, statusOf) => {
    const headers: Record<string, string> = {};
    if (!this.recording) {
      propagation.inject(this.parent, headers);
      return run(headers);
    }
    const span = this.startSpan(method, SpanKind.CLIENT, {
      "http.request.method": method,
      "url.full": outgoingUrlFull(url),
      "server.address": url.hostname,
    });
    propagation.inject(trace.setSpan(this.parent, span), headers);
    return inSpan(span, async () => {
      const result = await run(headers);
      const status = statusOf?.(result);
      if (status !== undefined) span.setAttribute("http.response.status_code", status);
      return result;
    });
  };

  /**
   * `deps` as this piece of work uses them: the database's root unit of work with a span per statement,
   * and outbound requests with theirs, both under this scope's current parent. Made once per scope.
   * Under a span that is not recorded (a caller's trace that is not sampled: a dropped trace of this
   * server's own gets no scope) the database is left as it is (no proxy between a handler and Prisma, no
   * per-statement call): only outbound requests are wrapped, to carry the caller's unsampled
   * `traceparent` on, so a downstream service does not sample what the caller dropped.
   */
  depsOf<D extends Pick<AppDeps, "database" | "outboundTrace">>(deps: D): D {
    if (this.depsOfBase === (deps as unknown as AppDeps) && this.deps) return this.deps as unknown as D;
    const database = this.recording
      ? { ...deps.database, root: tracedUnitOfWork(deps.database.root, this.statement) }
      : deps.database;
    const traced = { ...deps, database, outboundTrace: this.outbound };
    this.depsOfBase = deps as unknown as AppDeps;
    this.deps = traced as unknown as AppDeps;
    return traced;
  }
}
