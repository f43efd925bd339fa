// `@cred/core/testing`: internals that apps/api's tests call directly, to reach a state or an interleaving
// that HTTP cannot (a race in one process, a guard's refusal). Only test files may
// import it (`core-testing-entry-only-in-tests` in pnpm lint); production code uses `@cred/core` and
// `@cred/core/wallet`.
export { applyCredentialEncryptionSettings } from "./issuers/credential-encryption-key";
export { protectedProcedure, router } from "./rpc/trpc";
export { withIdempotency } from "./shared/idempotency";
export { outboundGet } from "./shared/outbound-fetch";
export { runVerificationEngine } from "./verification/verification-engine";
export { getActivePolicyForVerification } from "./verification-policies";
