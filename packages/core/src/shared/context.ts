import type { Database, UnitOfWork } from "@cred/db";
import type { Caches } from "./caches";
import type { KeyCustody } from "./key-custody";
import type { DomainMetrics } from "./metrics";
import type { OutboundTracer } from "./outbound-trace";
import type { Principal } from "./principal";
import type { RateLimiter } from "./rate-limit";
import type { SecretBox } from "./secret-box";
import type { SignInThrottle } from "./sign-in-throttle";

export interface CoreConfig {
  /** Public https origin wallets and integrators reach (issuer identifiers, offer URIs, status lists). */
  publicBaseUrl: string;
  /** Development mode: allows http loopback URLs (webhooks, base URL). */
  developmentMode: boolean;
  idempotencyRetentionHours: number;
  /**
   * Days a finished webhook delivery (`succeeded` or `failed`) is kept after its last change, with its
   * attempts; the sweeper then deletes it, and its event once no delivery refers to it. Pending
   * deliveries are never deleted.
   */
  webhookDeliveryRetentionDays: number;
  /** Days an audit event is kept; the worker's sweep purges older ones (docs/api/audit-events.md). */
  auditRetentionDays: number;
  /**
   * Days before a relying-party certificate (access or registration) expires when the worker emits its
   * `*.expiring` event, once per certificate (docs/api/relying-party-certificates.md).
   */
  certificateExpiryNoticeDays: number;
  /** Hosts a webhook URL may use even though they resolve to private addresses (tests only). */
  webhookAllowedHosts: string[];
  issuance: {
    offerLifetimeSeconds: number;
    accessTokenLifetimeSeconds: number;
    nonceLifetimeSeconds: number;
    txCodeMaxAttempts: number;
    batchSize: number;
    statusListSize: number;
    statusListTtlSeconds: number;
  };
}

/** Long-lived dependencies, built once per process. */
export interface AppDeps {
  database: Database;
  config: CoreConfig;
  secretBox: SecretBox;
  /** The key providers (shared/key-custody.ts): who holds each private key, by the name its row stores. */
  keyCustody: KeyCustody;
  rateLimiter: RateLimiter;
  /** Failed console sign-ins per account and client address, with growing waits. */
  signInThrottle: SignInThrottle;
  /** The process caches (shared/caches.ts); each slice declares its own specs. */
  caches: Caches;
  /**
   * The input parser of every `meta.idempotent` procedure of the router served, by procedure path
   * (`idempotentInputParsers(appRouter)`, rpc/idempotency.ts): the idempotency middleware reads them.
   */
  idempotentInputs: ReadonlyMap<string, (raw: unknown) => Promise<unknown>>;
  /** Flow outcomes for the server's metrics (shared/metrics.ts); `noDomainMetrics` where none are kept. */
  metrics: DomainMetrics;
  /**
   * Spans for outbound HTTP requests under the current request's span, with its `traceparent` sent on
   * (shared/outbound-trace.ts): set on the per-request copy of these deps when tracing is on.
   */
  outboundTrace?: OutboundTracer;
}

/** Per-request context shared by REST (rest/mount-rest.ts) and the console (tRPC). */
export interface RequestContext {
  deps: AppDeps;
  db: UnitOfWork;
  requestId: string;
  /** Raw `Authorization` header, when present. */
  authorization: string | undefined;
  /** Console session token (cookie), when the call comes from the console. */
  staffSessionToken: string | undefined;
  /** The caller's address as the transport derives it (proxies it trusts resolved), when it knows one. */
  clientAddress?: string;
  /** The caller's `x-ms-client-request-id`, when it sent a usable one (audit trail). */
  clientRequestId?: string;
  /** Console CSRF token (header), checked for mutations by staff. */
  csrfToken: string | undefined;
  idempotencyKey: string | undefined;
  /** Filled by procedures; the transport applies them to the response. */
  response: { status?: number; headers: Record<string, string> };
  principal?: Principal;
}

export function createRequestContext(
  deps: AppDeps,
  init: Pick<
    RequestContext,
    | "requestId"
    | "authorization"
    | "staffSessionToken"
    | "csrfToken"
    | "idempotencyKey"
    | "clientAddress"
    | "clientRequestId"
  >,
): RequestContext {
  return { deps, db: deps.database.root, response: { headers: {} }, ...init };
}
