import { SUPPORTED_API_VERSION } from "./mount-rest";

/** The product's name, as the reference and the console show it. */
export const PRODUCT_NAME = "Credential Platform";

/**
 * The introduction of openapi.json (`info.description`), shown at the top of the interactive reference
 * (/docs): what every operation has in common, in the order a first integration meets it.
 */
export const API_INTRODUCTION = `Issue, verify and manage digital credentials: SD-JWT VC (\`dc+sd-jwt\`) issued over OpenID4VCI 1.0, verified over OpenID4VP 1.0, revoked through the IETF Token Status List, with events as Standard Webhooks.

Two planes: the **Product plane** under \`/v1.0\` (issuance transactions, credentials, verifications) and the **Management plane** under \`/management\` (organisations, issuers, credential configurations, verification policies, webhooks).

**New here?** The quickstart (\`docs/quickstart.md\` in the platform's repository) goes from \`pnpm start\` to an issued and a verified credential in a handful of calls, with curl and with the TypeScript SDK \`@cred/sdk\` (\`packages/sdk\`), which handles everything below for you.

## Authentication

Every operation takes an API key in the \`Authorization\` header: \`Authorization: ApiKey <key>\`. A key belongs to one tenant and one environment (\`sandbox\` or \`production\`) and carries scopes; each operation names the scope it needs. Here, paste the key alone into **Authorize**: the page sends it with \`ApiKey \` in front. Missing or unknown key: 401; a key without the scope: 403 \`MissingScope\`.

## API version

Management requests carry the query parameter \`api-version=${SUPPORTED_API_VERSION}\` (missing: 400 \`MissingApiVersion\`; another value: 400 \`UnsupportedApiVersion\`). The Product plane has its version in the path (\`/v1.0\`).

## Idempotency

Creates accept an \`Idempotency-Key\` header of up to 255 visible characters (all but \`Webhooks_Create\`, whose answer holds a secret shown once). Send the same key when you retry: for 24 hours the first result is replayed, with \`Idempotent-Replayed: true\`, instead of doing the work twice. The same key with another body is refused with 409 \`IdempotencyKeyReused\`; while the first request is still running, 409 \`IdempotencyKeyInUse\` (retry it).

## Errors

Every error has one shape: \`{ "error": { "code", "message", "requestId", "details"? } }\`. \`code\` is a stable PascalCase word to branch on (\`ValidationFailed\`, \`NotFound\`, \`Throttled\`, …); \`details\` names each offending field (\`target\`) of an invalid request. \`requestId\` equals the \`x-ms-request-id\` header that every response carries: quote it in support requests. A resource of another tenant or environment reads as 404 \`NotFound\`.

## Paging

Lists answer \`{ "data": [...], "nextCursor": string | null }\`. Ask with \`limit\` (1–100, default 25) and pass the previous page's \`nextCursor\` as \`cursor\` until it is \`null\`. Pages are keyset-paged, so they stay stable while items are added.

## Throttling

Each API key has a request budget; every response to an authenticated request carries \`RateLimit\` and \`RateLimit-Policy\`. Over budget: 429 \`Throttled\` with \`Retry-After\` (seconds). A throttled request was not processed, so it is safe to repeat after that wait.

## Webhooks

Subscribe with \`Webhooks_Create\`; deliveries are signed per Standard Webhooks with the subscription's secret and come at least once (deduplicate by \`webhook-id\`). The event bodies are listed under **Webhooks** at the end of this page.`;
