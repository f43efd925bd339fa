import { type DomainMetrics, readOperationalGauges } from "@cred/core";
import type { Database, StatementObserver } from "@cred/db";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { BucketHistogram, type HistogramSeries } from "./bucket-histogram";
import { statusClass } from "./labels";

/** Which surface a request came in by: its `operation` label is named by that surface's rule (labels.ts). */
export type Surface = "rest" | "console" | "wallet" | "ops" | "unmatched";

/**
 * The server's metrics, one `Registry` per server (tests run several in one process): request rates,
 * errors and durations per operation, wallet outcomes, flow outcomes from core (`domain`), webhook
 * attempts, and, read on each scrape, the webhook queue, status list fill and the database pool. Names
 * and labels are listed in docs/operations.md.
 */
export interface ServerMetrics {
  registry: Registry;
  domain: DomainMetrics;
  /** For `openDatabase({ onStatement })`: every SQL statement's duration. */
  observeStatement: StatementObserver;
  request(surface: Surface, operation: string, status: number, seconds: number): void;
  /** A wallet endpoint's answer: `ok`, or the OAuth error code (labels.ts bounds it). */
  walletOutcome(endpoint: string, outcome: string): void;
  /** Reads the database's gauges on each scrape from now on. */
  watch(database: Database): void;
}

/** A counter series' increments not yet handed to prom-client, and its labels (made once). */
interface PendingCount {
  labels: Record<string, string>;
  pending: number;
}

interface RequestSeries {
  count: PendingCount;
  duration: HistogramSeries;
}

/** The map's value for `key`, made by `make` the first time. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** Hands a series' pending increments to its counter (from the counter's collect, on each scrape). */
function flush(counter: Counter, count: PendingCount) {
  if (count.pending === 0) return;
  counter.inc(count.labels, count.pending);
  count.pending = 0;
}

const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STATEMENT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
const WEBHOOK_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  // prom-client's gauges of handle, request and resource counts end in _total, which the exposition
  // format keeps for counters (promtool check metrics refuses them); the same counts by type remain
  // (nodejs_active_handles, nodejs_active_requests, nodejs_active_resources).
  for (const name of [
    "nodejs_active_handles_total",
    "nodejs_active_requests_total",
    "nodejs_active_resources_total",
  ])
    registry.removeSingleMetric(name);

  // Per request, a series' counts are added to a number of its own and handed to prom-client on each
  // scrape (the counters' collect), and its duration goes to a series of a BucketHistogram found once:
  // prom-client's inc and observe hash and check the labels on every call, which per request and per
  // statement was most of what metrics cost.
  // Keyed by the label values themselves (constant strings, whose hashes V8 keeps; the status a number),
  // so finding a series builds no string.
  const requestSeries = new Map<Surface, Map<string, Map<number, RequestSeries>>>();
  const outcomeSeries = new Map<string, Map<string, PendingCount>>();
  const allRequestSeries = function* () {
    for (const byOperation of requestSeries.values())
      for (const byStatus of byOperation.values()) yield* byStatus.values();
  };
  const allOutcomeSeries = function* () {
    for (const byOutcome of outcomeSeries.values()) yield* byOutcome.values();
  };
  new Counter({
    name: "cred_http_requests_total",
    help: "HTTP requests answered, by surface, operation (operation id, console procedure or wallet endpoint) and status.",
    labelNames: ["surface", "operation", "status_class", "status_code"] as const,
    registers,
    collect() {
      for (const series of allRequestSeries()) flush(this, series.count);
    },
  });
  const requestDuration = new BucketHistogram(
    "cred_http_request_duration_seconds",
    "Time from a request's arrival to its answer, by surface, operation and status class.",
    REQUEST_BUCKETS,
    registry,
  );
  new Counter({
    name: "cred_wallet_outcomes_total",
    help: "Wallet endpoint answers by endpoint and outcome: ok, or the OAuth/OpenID error code (other when unlisted).",
    labelNames: ["endpoint", "outcome"] as const,
    registers,
    collect() {
      for (const count of allOutcomeSeries()) flush(this, count);
    },
  });
  const issuanceCompleted = new Counter({
    name: "cred_issuance_flows_completed_total",
    help: "Issuance transactions completed (their credentials issued to the wallet).",
    registers,
  });
  const verificationsCompleted = new Counter({
    name: "cred_verifications_completed_total",
    help: "Verification sessions decided, by outcome.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const trustSourceRefreshes = new Counter({
    name: "cred_trust_source_refreshes_total",
    help: "Trust source (trusted list) refreshes by outcome, and for failures the reason code (BadSignature, UnknownSigner, ListExpired, FetchFailed, ...).",
    labelNames: ["outcome", "reason"] as const,
    registers,
  });
  const credentialStatusChanges = new Counter({
    name: "cred_credential_status_changes_total",
    help: "Credentials (each copy of a batch) revoked, suspended or reinstated.",
    labelNames: ["action"] as const,
    registers,
  });
  const webhookAttemptDuration = new Histogram({
    name: "cred_webhook_attempt_duration_seconds",
    help: "Webhook attempts by result class (success, http_4xx, timeout, ...), from the address check to the answer.",
    labelNames: ["result"] as const,
    buckets: WEBHOOK_BUCKETS,
    registers,
  });
  const webhookFailures = new Counter({
    name: "cred_webhook_attempt_failures_total",
    help: "Webhook attempts that failed, by reason class.",
    labelNames: ["reason"] as const,
    registers,
  });
  const statementDuration = new BucketHistogram(
    "cred_db_statement_duration_seconds",
    "SQL statements run over the database pool (Prisma and direct), from send to result.",
    STATEMENT_BUCKETS,
    registry,
  );
  const statements = statementDuration.seriesOf("", {});
  for (const outcome of ["verified", "rejected"]) verificationsCompleted.inc({ outcome }, 0);
  for (const action of ["revoked", "suspended", "reinstated"]) credentialStatusChanges.inc({ action }, 0);

  let database: Database | undefined;
  new Gauge({
    name: "cred_db_pool_connections",
    help: "Database pool connections by state (idle, in_use); the embedded database's are virtual.",
    labelNames: ["state"] as const,
    registers,
    collect() {
      if (!database) return;
      const stats = database.poolStats();
      this.set({ state: "idle" }, stats.idle);
      this.set({ state: "in_use" }, stats.total - stats.idle);
    },
  });
  new Gauge({
    name: "cred_db_pool_max_connections",
    help: "The most connections the database pool opens.",
    registers,
    collect() {
      if (database) this.set(database.poolStats().max);
    },
  });
  new Gauge({
    name: "cred_db_pool_waiting_requests",
    help: "Callers waiting for a database pool connection.",
    registers,
    collect() {
      if (database) this.set(database.poolStats().waiting);
    },
  });
  // The two database reads are shared by the gauges of one scrape: the first gauge collected starts them.
  let pending: Promise<Awaited<ReturnType<typeof readOperationalGauges>> | undefined> | undefined;
  const gauges = () => {
    if (!database) return undefined;
    // A database that does not answer leaves these gauges at their last values; the rest of the
    // scrape (process, requests, pool) still answers.
    pending ??= readOperationalGauges(database.root)
      .catch(() => undefined)
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  new Gauge({
    name: "cred_webhook_queue_depth",
    help: "Webhook deliveries waiting for an attempt (read on scrape).",
    registers,
    async collect() {
      const read = await gauges();
      if (read) this.set(read.webhookQueueDepth);
    },
  });
  new Gauge({
    name: "cred_status_lists",
    help: "Status lists by state (open, full), across issuers (read on scrape).",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      const read = await gauges();
      if (!read) return;
      this.set({ state: "open" }, read.statusLists.open);
      this.set({ state: "full" }, read.statusLists.full);
    },
  });
  new Gauge({
    name: "cred_trust_sources",
    help: "Trust sources (trusted lists) across tenants (read on scrape): all (total), those whose last refresh failed and which run on their last good copy (refresh_failing), and those with a list past its NextUpdate, which trusts nothing (past_next_update).",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      const read = await gauges();
      if (!read) return;
      this.set({ state: "total" }, read.trustSources.total);
      this.set({ state: "refresh_failing" }, read.trustSources.failing);
      this.set({ state: "past_next_update" }, read.trustSources.pastNextUpdate);
    },
  });
  new Gauge({
    name: "cred_status_list_fill_ratio",
    help: "Entries taken over size of the open status lists (new credentials go to them): the fullest (max) and the mean (mean).",
    labelNames: ["aggregate"] as const,
    registers,
    async collect() {
      const read = await gauges();
      if (!read) return;
      this.set({ aggregate: "max" }, read.statusLists.maxRatio);
      this.set({ aggregate: "mean" }, read.statusLists.meanRatio);
    },
  });

  return {
    registry,
    domain: {
      issuanceCompleted: () => issuanceCompleted.inc(),
      verificationCompleted: (outcome) => verificationsCompleted.inc({ outcome }),
      credentialStatusChanged: (action) => credentialStatusChanges.inc({ action }),
      trustSourceRefreshed: (outcome, code) =>
        trustSourceRefreshes.inc({ outcome, reason: outcome === "failed" ? (code ?? "other") : "none" }),
      webhookAttempt(seconds, result) {
        webhookAttemptDuration.observe({ result }, seconds);
        if (result !== "success") webhookFailures.inc({ reason: result });
      },
    },
    observeStatement: (seconds) => statementDuration.observe(statements, seconds),
    request(surface, operation, status, seconds) {
      const byStatus = entry(
        entry(requestSeries, surface, () => new Map()),
        operation,
        () => new Map(),
      );
      let series = byStatus.get(status);
      if (!series) {
        const klass = statusClass(status);
        series = {
          count: {
            labels: { surface, operation, status_class: klass, status_code: String(status) },
            pending: 0,
          },
          duration: requestDuration.seriesOf(`${surface} ${operation} ${klass}`, {
            surface,
            operation,
            status_class: klass,
          }),
        };
        byStatus.set(status, series);
      }
      series.count.pending++;
      requestDuration.observe(series.duration, seconds);
    },
    walletOutcome(endpoint, outcome) {
      const byOutcome = entry(outcomeSeries, endpoint, () => new Map());
      let count = byOutcome.get(outcome);
      if (!count) {
        count = { labels: { endpoint, outcome }, pending: 0 };
        byOutcome.set(outcome, count);
      }
      count.pending++;
    },
    watch(watched) {
      database = watched;
    },
  };
}
