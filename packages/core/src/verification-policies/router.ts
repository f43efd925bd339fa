import {
  ZActivateVerificationPolicyVersionRequest,
  ZCreateVerificationPolicyRequest,
  ZCreateVerificationPolicyResponse,
  ZCreateVerificationPolicyVersionRequest,
  ZGetVerificationPolicyRequest,
  ZGetVerificationPolicyResponse,
  ZGetVerificationPolicyVersionRequest,
  ZListVerificationPoliciesRequest,
  ZListVerificationPoliciesResponse,
  ZReactivateVerificationPolicyRequest,
  ZReactivateVerificationPolicyResponse,
  ZSuspendVerificationPolicyRequest,
  ZSuspendVerificationPolicyResponse,
  ZVerificationPolicyResponse,
  ZVerificationPolicyVersionResponse,
} from "@cred/contracts/verification-policies";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { reactivateVerificationPolicy, suspendVerificationPolicy } from "./change-verification-policy-status";
import { createVerificationPolicy } from "./create-verification-policy";
import { getVerificationPolicy } from "./get-verification-policy";
import { listVerificationPolicies } from "./list-verification-policies";
import {
  activateVerificationPolicyVersion,
  createVerificationPolicyVersion,
  getVerificationPolicyVersion,
} from "./policy-versions";

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
          "Creates an active policy (its version 1). Every credential type must belong to a credential configuration in this environment unless the credential trusts an external issuer (jwksUri or x5cRoot); platform issuers must exist here. A policy must ask for at least one claim (requiredClaims or optionalClaims of some credential; 400 otherwise). Change it later with VerificationPolicies_CreateVersion. Accepts Idempotency-Key.",
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
    .mutation(async ({ ctx, input }) => ({
      data: await createVerificationPolicy(ctx.db, scopeOf(ctx), ctx.deps.config, input),
    })),

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

  getVersion: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{policyIdentifier}/versions/{version}`,
        operationId: "VerificationPolicies_GetVersion",
        summary: "Get one version of a verification policy, with its content",
        description:
          "The display name, purpose and rules of any version, active or superseded (sessions started under it were built from it).",
        tags: TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetVerificationPolicyVersionRequest)
    .output(ZVerificationPolicyVersionResponse)
    .query(async ({ ctx, input }) => ({
      data: await getVerificationPolicyVersion(ctx.db, scopeOf(ctx), input),
    })),

  createVersion: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{policyIdentifier}/versions`,
        operationId: "VerificationPolicies_CreateVersion",
        summary: "Change a verification policy: create and activate a new version",
        description:
          "The way to edit a policy. Takes the whole content again (displayName, purpose and rules, as VerificationPolicies_Create without the identifier), checked as on create, adds it as the next version and makes it the active one: verifications started from now on run under it. Sessions started earlier keep the rules and purpose they were created with. The policy's status (active or suspended) does not change. At most 100 versions (409 InvalidState). Emits verification_policy.version_activated. Accepts Idempotency-Key.",
        tags: TAGS,
        successDescription: "The version was created and is now the active one.",
      },
      scopes: ["verification-policies.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZCreateVerificationPolicyVersionRequest)
    .output(ZVerificationPolicyResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createVerificationPolicyVersion(ctx.db, scopeOf(ctx), ctx.deps.config, input),
    })),

  activateVersion: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{policyIdentifier}/versions/{version}/activate`,
        operationId: "VerificationPolicies_ActivateVersion",
        summary: "Make an existing version of a verification policy the active one",
        description:
          "Rolls the policy back (or forward) to one of its versions, for verifications started from now on. Activating the active version changes nothing. Emits verification_policy.version_activated when the active version changes.",
        tags: TAGS,
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZActivateVerificationPolicyVersionRequest)
    .output(ZVerificationPolicyResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await activateVerificationPolicyVersion(ctx.db, scopeOf(ctx), input),
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
