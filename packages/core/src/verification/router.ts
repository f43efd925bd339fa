import {
  ZCreateVerificationRequest,
  ZGetVerificationRequest,
  ZSessionIdParams,
  ZSubmitVerificationSessionRequest,
  ZVerificationSessionResponse,
} from "@cred/contracts/verification-sessions";
import { protectedProcedure, router } from "../rpc/trpc";
import { withIdempotency } from "../shared/idempotency";
import { scopeOf } from "../shared/scope-of";
import { cancelVerificationSession } from "./cancel-verification-session";
import { createVerification } from "./create-verification";
import { getVerificationSession } from "./get-verification-session";
import { submitVerificationSession } from "./submit-verification-session";
import { getVerifierIdentity } from "./verifier-identity";

const TAGS = ["Verifications"];

export const verificationsRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/verifications",
        operationId: "Verifications_Create",
        summary: "Start a verification under a verification policy",
        description:
          "Creates a pending verification session; show `authorizationRequestUri` to the holder (QR code or same-device link). Honours `Idempotency-Key`.",
        tags: TAGS,
        successDescription: "The verification session was created.",
      },
      scopes: ["verification.execute"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 429],
      idempotent: true,
    })
    .input(ZCreateVerificationRequest)
    .output(ZVerificationSessionResponse)
    .mutation(async ({ ctx, input }) => {
      const identity = await getVerifierIdentity(ctx.deps, scopeOf(ctx));
      return withIdempotency(ctx, "Verifications_Create", input, async (db) => ({
        data: await createVerification(ctx.deps, db, scopeOf(ctx), input, identity),
      }));
    }),

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
});
