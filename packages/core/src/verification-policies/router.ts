import {
  ZCreateVerificationPolicyRequest,
  ZCreateVerificationPolicyResponse,
  ZGetVerificationPolicyRequest,
  ZGetVerificationPolicyResponse,
  ZListVerificationPoliciesRequest,
  ZListVerificationPoliciesResponse,
  ZReactivateVerificationPolicyRequest,
  ZReactivateVerificationPolicyResponse,
  ZSuspendVerificationPolicyRequest,
  ZSuspendVerificationPolicyResponse,
} from "@cred/contracts/verification-policies";
import { protectedProcedure, router } from "../rpc/trpc";
import { withIdempotency } from "../shared/idempotency";
import { scopeOf } from "../shared/scope-of";
import { reactivateVerificationPolicy, suspendVerificationPolicy } from "./change-verification-policy-status";
import { createVerificationPolicy } from "./create-verification-policy";
import { getVerificationPolicy } from "./get-verification-policy";
import { listVerificationPolicies } from "./list-verification-policies";

const TAGS = ["Verification policies"];
const BASE = "/management/verification-policies";

export const verificationPoliciesRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        operationId: "VerificationPolicies_Create",
        summary: "Create a verification policy",
        description:
          "Creates an active policy. Every credential type must belong to a credential configuration in this environment unless the credential trusts an external issuer (jwksUri or x5cRoot); platform issuers must exist here. Accepts Idempotency-Key.",
        tags: TAGS,
        successDescription: "The policy was created.",
      },
      scopes: ["verification-policies.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 429],
      idempotent: true,
    })
    .input(ZCreateVerificationPolicyRequest)
    .output(ZCreateVerificationPolicyResponse)
    .mutation(({ ctx, input }) =>
      withIdempotency(ctx, "VerificationPolicies_Create", input, async (db) => ({
        data: await createVerificationPolicy(db, scopeOf(ctx), ctx.deps.config, input),
      })),
    ),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{policyIdentifier}`,
        operationId: "VerificationPolicies_Get",
        summary: "Get a verification policy, with its rules",
        tags: TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetVerificationPolicyRequest)
    .output(ZGetVerificationPolicyResponse)
    .query(async ({ ctx, input }) => ({
      data: await getVerificationPolicy(ctx.db, scopeOf(ctx), input.policyIdentifier),
    })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BASE,
        operationId: "VerificationPolicies_List",
        summary: "List verification policies",
        description:
          "Lists the identifiers callers name when starting a verification, with display name and status; never the rules.",
        tags: TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListVerificationPoliciesRequest)
    .output(ZListVerificationPoliciesResponse)
    .query(({ ctx, input }) => listVerificationPolicies(ctx.db, scopeOf(ctx), input)),

  suspend: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{policyIdentifier}/suspend`,
        operationId: "VerificationPolicies_Suspend",
        summary: "Suspend a verification policy",
        description:
          "active → suspended: new verifications naming the policy are refused. Suspending a suspended policy → 409 InvalidState. Emits verification_policy.suspended.",
        tags: TAGS,
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZSuspendVerificationPolicyRequest)
    .output(ZSuspendVerificationPolicyResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await suspendVerificationPolicy(ctx.db, scopeOf(ctx), input.policyIdentifier),
    })),

  reactivate: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{policyIdentifier}/reactivate`,
        operationId: "VerificationPolicies_Reactivate",
        summary: "Reactivate a suspended verification policy",
        description:
          "suspended → active. Reactivating an active policy → 409 InvalidState. Emits verification_policy.reactivated.",
        tags: TAGS,
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZReactivateVerificationPolicyRequest)
    .output(ZReactivateVerificationPolicyResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await reactivateVerificationPolicy(ctx.db, scopeOf(ctx), input.policyIdentifier),
    })),
});
