import { setMaxListeners } from "node:events";
import type { AppDeps } from "@cred/core";
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  DEFAULT_DELIVERY_OPTIONS,
  type DeliveryOptions,
  deliverWebhook,
  dispatchOutboxEvents,
  maintainAuditTrail,
  noDomainMetrics,
  notifyExpiredTrustSources,
  notifyExpiringRelyingPartyCertificates,
  onOutboxWrite,
  refreshDueTrustSources,
  sweepExpired,
} from "@cred/core";
import { traceAttempt } from "../tracing/webhook-attempt-span";
import { listenForOutboxWrites } from "./outbox-notify";
import type { WorkerLogger } from "./worker-logger";

export type { WorkerLogger };

export interface WebhookWorkerOptions {
  /** Pause between rounds when there was nothing to do (ms). */
  pollIntervalMs: number;
  /** How often the sweeper runs (ms); 0 turns it off. */
  sweepIntervalMs: number;
  /**
   * Attempts in flight at once. 8 could not keep up with one busy tenant (each attempt also waits for its
   * statements behind the request traffic): deliveries lagged seconds behind ~500 events/s; 32 kept it
   * to about a second (docs/adr/0015-webhook-delivery-costs.md).
   */
  concurrency: number;
  delivery: DeliveryOptions;
}

export const DEFAULT_WORKER_OPTIONS: WebhookWorkerOptions = {
  pollIntervalMs: 1000,
  sweepIntervalMs: 60_000,
  concurrency: 32,
  delivery: DEFAULT_DELIVERY_OPTIONS,
};

/** After a delivery, how long the worker polls quickly, and how quickly. */
const HOT_PERIOD_MS = 10_000;
const HOT_POLL_MS = 50;
/**
 * After an event is written in this process (or announced by another, outbox-notify.ts), how long the
 * worker polls quickly: the signal may come before the event's commit.
 */
const NUDGED_PERIOD_MS = 1_000;
/**
 * Events written all the time for tenants without webhooks (written already dispatched) would keep a
 * nudged worker polling every HOT_POLL_MS for nothing: after this many nudged rounds in a row that find
 * no delivery, nudges are ignored for NUDGES_MUTED_MS (the poll interval still applies).
 */
const FRUITLESS_NUDGED_ROUNDS = 40;
const NUDGES_MUTED_MS = 10_000;

/** `keyCustody`: the sweeper destroys HSM request encryption keys whose overlap ended. */
export type WorkerDeps = Pick<AppDeps, "database" | "config" | "secretBox" | "caches" | "keyCustody"> &
  Partial<Pick<AppDeps, "metrics">>;

export interface WebhookWorker {
  /** Starts the loop (idempotent). */
  start(): void;
  /**
   * Stops claiming. Graceful (default): waits for attempts in flight to finish and be recorded.
   * `{ graceful: false }` abandons them unrecorded, as a crash would; their leases run out and
   * another worker retries them.
   */
  stop(options?: { graceful?: boolean }): Promise<void>;
  /** One round (dispatch, claim, deliver, sweep when due), awaited in full; for tests and tools. */
  runOnce(): Promise<void>;
  readonly running: boolean;
}

/**
 * The delivery loop: fans outbox events out to deliveries, claims due deliveries (several workers may
 * run against one PostgreSQL database; claims never overlap), makes their attempts concurrently, and
 * runs the sweeper periodically. Runs inside the API process or alone (`pnpm worker`).
 */
export function createWebhookWorker(
  deps: WorkerDeps,
  logger: WorkerLogger,
  overrides: Partial<Omit<WebhookWorkerOptions, "delivery">> & { delivery?: Partial<DeliveryOptions> } = {},
): WebhookWorker {
  const options: WebhookWorkerOptions = {
    ...DEFAULT_WORKER_OPTIONS,
    ...overrides,
    delivery: { ...DEFAULT_DELIVERY_OPTIONS, ...overrides.delivery },
  };
  const inFlight = new Set<Promise<void>>();
  // Every attempt in flight listens on the one stop signal: up to `concurrency` listeners, not a leak.
  const stopSignal = () => {
    const controller = new AbortController();
    setMaxListeners(options.concurrency + 16, controller.signal);
    return controller;
  };
  let abort = stopSignal();
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let sleepingLong = false;
  let lastSweep = 0;
  /** The trust source refresh pass under way, if any. */
  let trustRefresh: Promise<void> | undefined;
  /** The expiry notice pass under way, if any. */
  let notices: Promise<void> | undefined;
  let lastDelivery = Number.NEGATIVE_INFINITY;
  let lastNudge = Number.NEGATIVE_INFINITY;
  let fruitlessNudgedRounds = 0;
  let nudgesMutedUntil = 0;
  let stopListening: (() => void) | undefined;
  let stopListeningToOthers: (() => void) | undefined;
  /** An event was written in this process: end an idle sleep, and poll quickly for a moment. */
  const nudge = () => {
    const now = Date.now();
    if (now < nudgesMutedUntil) return;
    lastNudge = now;
    if (sleepingLong) wake?.();
  };

  const attempt = (delivery: ClaimedDelivery) => {
    const job = traceAttempt(delivery, (scope) =>
      deliverWebhook(scope ? scope.depsOf(deps) : deps, delivery, options.delivery, abort.signal),
    )
      .then((result) => {
        if (result !== "succeeded" && result !== "abandoned") {
          logger.info({ deliveryId: delivery.id, eventType: delivery.eventType, result }, "webhook attempt");
        }
      })
      .catch((error) => logger.error({ err: error, deliveryId: delivery.id }, "webhook attempt failed"))
      .finally(() => inFlight.delete(job));
    inFlight.add(job);
    return job;
  };

  /** Dispatches, sweeps when due, claims what capacity allows and starts those attempts. */
  const round = async (): Promise<{ claimed: number; jobs: Promise<void>[] }> => {
    const batch = 100;
    while ((await dispatchOutboxEvents(deps, { batchSize: batch })) === batch) {
      // a backlog: keep fanning out
    }
    if (options.sweepIntervalMs > 0 && Date.now() - lastSweep >= options.sweepIntervalMs) {
      lastSweep = Date.now();
      const report = await sweepExpired(deps);
      const audit = await maintainAuditTrail(deps);
      if (audit.sealed || audit.purged) logger.info({ ...audit }, "sweeper sealed or purged audit events");
      if (report.issuanceTransactionsExpired || report.verificationSessionsExpired) {
        logger.info({ ...report }, "sweeper expired pending sessions");
      }
      // Expiry notices (relying-party certificates, lapsed trusted lists), beside the rounds like the
      // refreshes: each is recorded with its event, so a restart or another worker does not send it again.
      notices ??= Promise.all([notifyExpiringRelyingPartyCertificates(deps), notifyExpiredTrustSources(deps)])
        .then(([expiring, lapsed]) => {
          if (expiring.accessCertificates || expiring.registrationCertificates || lapsed.notified)
            logger.info({ ...expiring, trustSourcesExpired: lapsed.notified }, "sweeper sent expiry notices");
        })
        .catch((error) => logger.error({ err: error }, "sweeper: expiry notices failed"))
        .finally(() => {
          notices = undefined;
        });
      // Trusted lists are fetched beside the rounds (a slow list must not hold up deliveries), one
      // refresh pass at a time.
      trustRefresh ??= refreshDueTrustSources({ ...deps, metrics: deps.metrics ?? noDomainMetrics })
        .then((trust) => {
          if (trust.failed)
            logger.warn({ ...trust }, "sweeper: trust source refreshes failed (last good copies kept)");
        })
        .catch((error) => logger.error({ err: error }, "sweeper: trust source refresh pass failed"))
        .finally(() => {
          trustRefresh = undefined;
        });
    }
    const capacity = Math.min(options.concurrency - inFlight.size, options.delivery.batchSize);
    if (capacity <= 0) return { claimed: 0, jobs: [] };
    const claimed = await claimDueDeliveries(deps, { ...options.delivery, batchSize: capacity });
    return { claimed: claimed.length, jobs: claimed.map(attempt) };
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      sleepingLong = ms > HOT_POLL_MS;
      const done = () => {
        sleepingLong = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = () => {
        clearTimeout(timer);
        done();
      };
    });

  /**
   * Resolves once a quarter of the slots (at least one) are free again, or on stop: claiming in steps, not
   * one delivery per ended attempt, spares a fan-out check and a claim statement per delivery.
   */
  const slotsFreed = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      const target = options.concurrency - Math.max(1, Math.floor(options.concurrency / 4));
      const check = () => {
        if (!running || inFlight.size <= target) resolve();
        else void Promise.race(inFlight).then(check);
      };
      check();
    });

  const run = async () => {
    while (running) {
      let busy = false;
      try {
        busy = (await round()).claimed > 0;
        if (busy) lastDelivery = Date.now();
      } catch (error) {
        logger.error({ err: error }, "webhook worker round failed");
      }
      if (!running) break;
      // Claimed something: go again at once, so a backlog drains at the speed of the attempts; at
      // capacity, as soon as some of them end (sleeping the poll interval there capped delivery at
      // `concurrency` per interval).
      if (busy) {
        if (inFlight.size >= options.concurrency) await slotsFreed();
        continue;
      }
      // Events keep coming while a tenant is busy: for a while after its last delivery the worker looks
      // again every HOT_POLL_MS, so an event waits tens of milliseconds, not a whole interval.
      const now = Date.now();
      const nudged = now - lastNudge < NUDGED_PERIOD_MS;
      fruitlessNudgedRounds = nudged && now - lastDelivery >= HOT_PERIOD_MS ? fruitlessNudgedRounds + 1 : 0;
      if (fruitlessNudgedRounds >= FRUITLESS_NUDGED_ROUNDS) {
        nudgesMutedUntil = now + NUDGES_MUTED_MS;
        lastNudge = Number.NEGATIVE_INFINITY;
        fruitlessNudgedRounds = 0;
      }
      const hot = now - lastDelivery < HOT_PERIOD_MS || now - lastNudge < NUDGED_PERIOD_MS;
      await sleep(hot ? Math.min(HOT_POLL_MS, options.pollIntervalMs) : options.pollIntervalMs);
    }
  };

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      abort = stopSignal();
      stopListening = onOutboxWrite(nudge);
      // LISTEN needs a session: behind a transaction pooler without a direct connection, polling only.
      const pool = deps.database.sessionPool;
      if (pool) stopListeningToOthers = listenForOutboxWrites(pool, nudge, logger);
      loop = run();
    },
    async stop({ graceful = true } = {}) {
      running = false;
      stopListening?.();
      stopListeningToOthers?.();
      wake?.();
      await loop;
      loop = undefined;
      if (!graceful) abort.abort();
      await Promise.allSettled([...inFlight, trustRefresh, notices]);
    },
    async runOnce() {
      const { jobs } = await round();
      await Promise.allSettled(jobs);
    },
  };
}
