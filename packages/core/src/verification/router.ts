import { ZSubmitDcApiResponseRequest } from "@cred/contracts/dc-api";
import {
  ZCreateVerificationRequest,
  ZGetVerificationRequest,
  ZListVerificationSessionsRequest,
  ZSessionIdParams,
  ZSubmitVerificationSessionRequest,
  ZVerificationSessionCollection,
  ZVerificationSessionResponse,
} from "@cred/contracts/verification-sessions";
import { authenticatedProcedure, idempotency, protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { cancelVerificationSession } from "./cancel-verification-session";
import { createVerification } from "./create-verification";
import { getVerificationSession } from "./get-verification-session";
import { listVerificationSessions } from "./list-verification-sessions";
import { submitDcApiResponse } from "./submit-dc-api-response";
import { submitVerificationSession } from "./submit-verification-session";
import { getVerifierIdentity } from "./verifier-identity";

const TAGS = ["Verifications"];

export const verificationsRouter = router({
  // The verifier identity is read (and on first use generated) before the idempotency unit of work
  // opens: it is cached beyond this request, so it must not depend on the request's transaction.
  create: authenticatedProcedure
    .use(async ({ ctx, next }) =>
      next({ ctx: { verifierIdentity: await getVerifierIdentity(ctx.deps, scopeOf(ctx)) } }),
    )
    .use(idempotency)
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/verifications",
        operationId: "Verifications_Create",
        summary: "Start a verification under a verification policy",
        description:
          "Creates a pending verification session; show `authorizationRequestUri` to the holder (QR code or same-device link), or, with `dcApi`, pass `dcApiRequest` to the browser's `navigator.credentials.get` (Digital Credentials API) and hand its answer to VerificationSessions_SubmitDcApiResponse. Honours `Idempotency-Key`.",
        tags: TAGS,
        successDescription: "The verification session was created.",
      },
      scopes: ["verification.execute"],
      successStatus: 201,
      // 503: a signed request (by value or DC API) whose access-certificate key is in a token that cannot be reached.
      errorStatuses: [400, 401, 403, 409, 429, 503],
      idempotent: true,
    })
    .input(ZCreateVerificationRequest)
    .output(ZVerificationSessionResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createVerification(ctx.deps, ctx.db, scopeOf(ctx), input, ctx.verifierIdentity),
    })),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/verifications/{verificationId}",
        operationId: "Verifications_Get",
        summary: "Get a verification",
        description:
          "Returns the verification session. A pending session past its expiry reads as `expired`. Pass `responseCode` to check the code a same-device redirect delivered (400 when it is not this session's); under a policy with `requireResponseCode`, a session a wallet answered shows its `result` only then (otherwise `resultWithheld: true`).",
        tags: TAGS,
      },
      scopes: ["verification.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetVerificationRequest)
    .output(ZVerificationSessionResponse)
    .query(async ({ ctx, input }) => ({
      data: await getVerificationSession(ctx.deps, ctx.db, scopeOf(ctx), input.verificationId, {
        ...(input.responseCode !== undefined ? { responseCode: input.responseCode } : {}),
      }),
    })),

  getSession: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/verification-sessions/{id}",
        operationId: "VerificationSessions_Get",
        summary: "Get a verification session",
        description:
          "Same resource as Verifications_Get. A pending session past its expiry reads as `expired`. Under a policy with `requireResponseCode`, a session a wallet answered reads with `resultWithheld: true` instead of its `result` (Verifications_Get with the `responseCode` shows it).",
        tags: TAGS,
      },
      scopes: ["verification.read"],
      errorStatuses: [401, 403, 404, 429],
    })
    .input(ZSessionIdParams)
    .output(ZVerificationSessionResponse)
    .query(async ({ ctx, input }) => ({
      data: await getVerificationSession(ctx.deps, ctx.db, scopeOf(ctx), input.id),
    })),

  listSessions: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/verification-sessions",
        operationId: "VerificationSessions_List",
        summary: "List verification sessions",
        description:
          "This environment's verification sessions, newest first, filtered by state (a pending one past its expiry counts as `expired`), policy, creation time and reason code. Each item is what VerificationSessions_Get shows: the outcome, its reasons and each credential's checks, and the claim-minimised result unless the policy withholds it (`resultWithheld`). An extension of the contract (docs/api/verification.md).",
        tags: TAGS,
      },
      scopes: ["verification.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListVerificationSessionsRequest)
    .output(ZVerificationSessionCollection)
    .query(({ ctx, input }) => listVerificationSessions(ctx.deps, ctx.db, scopeOf(ctx), input)),

  cancel: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/verification-sessions/{id}/cancel",
        operationId: "VerificationSessions_Cancel",
        summary: "Cancel a verification session",
        description:
          "pending → cancelled; cancelling a cancelled session again returns it unchanged; verified, rejected or expired → 409.",
        tags: TAGS,
      },
      scopes: ["verification.execute"],
      errorStatuses: [401, 403, 404, 409, 429],
    })
    .input(ZSessionIdParams)
    .output(ZVerificationSessionResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await cancelVerificationSession(ctx.deps, ctx.db, scopeOf(ctx), input.id),
    })),

  submit: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/verification-sessions/{id}/submissions",
        operationId: "VerificationSessions_Submit",
        summary: "Submit a presentation (legacy server-to-server)",
        description:
          "Legacy alternative to the wallet's OpenID4VP callback; the same engine decides the same session. A session that is no longer pending → 409.",
        tags: TAGS,
      },
      scopes: ["verification.execute"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZSubmitVerificationSessionRequest)
    .output(ZVerificationSessionResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await submitVerificationSession(ctx.deps, ctx.db, scopeOf(ctx), input),
    })),

  submitDcApiResponse: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/verification-sessions/{id}/dc-api-responses",
        operationId: "VerificationSessions_SubmitDcApiResponse",
        summary: "Hand back a Digital Credentials API response",
        description:
          "The `{ protocol, data }` that `navigator.credentials.get` returned for the session's `dcApiRequest` (OpenID4VP Appendix A): the same engine as the wallet callback decides the session (verified or rejected, with reasons: e.g. a presentation for another origin or nonce is rejected). A response that cannot be read (other protocol, malformed, not encrypted to this session's key) → 400 and the session stays pending; a session no longer pending (a replay) or not created for the DC API → 409.",
        tags: TAGS,
      },
      scopes: ["verification.execute"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZSubmitDcApiResponseRequest)
    .output(ZVerificationSessionResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await submitDcApiResponse(ctx.deps, ctx.db, scopeOf(ctx), input),
    })),
});
