// `@cred/core`: what the API composes into a server (app router, request context, config, secrets, rate
// limits), the REST adapter's hooks, the webhook worker, and the operator CLI's use-cases. The wallet
// endpoints' use-cases are `@cred/core/wallet`; tests' hooks into internals are `@cred/core/testing`.
// packages/core/package.json exports these three and nothing else (`core-public-entries` in pnpm lint).
import "./shared/contract-checks";

export {
  ENVIRONMENTS,
  type Environment,
  isScope,
  PLATFORM_SCOPE,
  SCOPES,
  type Scope,
  STAFF_SCOPE,
} from "@cred/contracts/scopes";
export { createApiKey, listApiKeysAcrossTenants, revokeApiKey } from "./api-keys/api-keys";
export { type ChainReport, maintainAuditTrail, verifyAuditChain } from "./audit";
export {
  type ClaimedDelivery,
  claimDueDeliveries,
  DEFAULT_DELIVERY_OPTIONS,
  type DeliveryOptions,
  deliverWebhook,
  dispatchOutboxEvents,
  type OperationalGauges,
  onOutboxWrite,
  readOperationalGauges,
  retryScheduleFor,
  sweepExpired,
} from "./events";
export { type ListedIssuerKey, listIssuerKeysAcrossTenants } from "./issuers";
export { issuerKeyMasterKeyCannotOpen, type ResealReport, resealSecrets } from "./master-key/reseal-secrets";
export { type AppRouter, appRouter } from "./router";
export { type IdempotentInputs, idempotentInputParsers } from "./rpc/idempotency";
export { createCallerFactory, type OperationMeta } from "./rpc/trpc";
export { recordOperatorAction } from "./shared/audit-trail";
export { type CacheSpec, Caches, cacheSpec } from "./shared/caches";
export { type AppDeps, type CoreConfig, createRequestContext } from "./shared/context";
export { toErrorEnvelope, UNSTORABLE_TEXT_MESSAGE } from "./shared/error-shape";
export { DomainError, ERROR_STATUS, type ErrorCode, type ErrorEnvelope } from "./shared/errors";
export { newId } from "./shared/ids";
export {
  type GeneratedKey,
  type GenerateKeyRequest,
  type HeldKey,
  isKeyCustodyUnavailable,
  KEY_CUSTODY_RETRY_AFTER_SECONDS,
  KeyCustody,
  type KeyProvider,
  type KeyProviderName,
  type KeyProviderStatus,
  keyCustodyUnavailable,
  type StoredKeyReference,
} from "./shared/key-custody";
export {
  type CredentialStatusAction,
  type DomainMetrics,
  noDomainMetrics,
  type VerificationOutcome,
  type WebhookAttemptClass,
} from "./shared/metrics";
export type { OutboundTracer } from "./shared/outbound-trace";
export { createRateLimiter } from "./shared/rate-limit";
export { SecretBox } from "./shared/secret-box";
export { createSignInThrottle, SIGN_IN_THROTTLE, type SignInThrottlePolicy } from "./shared/sign-in-throttle";
export { SoftwareKeyProvider } from "./shared/software-key-provider";
export { isUnstorableTextViolation } from "./shared/sql-errors";
export { readSessionCookie } from "./staff/session-cookie";
export { addStaffUser, createStaffUser, grantStaffMembership, resetStaffPassword } from "./staff/staff-auth";
export { bootstrap } from "./tenants/bootstrap";
export { createTenant, findTenant, listTenants } from "./tenants/tenants";
export { notifyExpiredTrustSources, refreshDueTrustSources } from "./trust-sources";
export {
  type ListedVerifierKey,
  listVerifierKeysAcrossTenants,
  notifyExpiringRelyingPartyCertificates,
} from "./verifier-certificates";
