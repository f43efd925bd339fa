import {
  ZCredentialCollection,
  ZCredentialResponse,
  ZCredentialStatusResponse,
  ZGetCredentialRequest,
  ZListCredentialsRequest,
  ZReinstateCredentialRequest,
  ZRevokeCredentialRequest,
  ZSuspendCredentialRequest,
} from "@cred/contracts/credentials";
import {
  issueThroughTransaction,
  ZCreateIssuanceTransactionRequest,
  ZIssuanceTransactionResponse,
} from "../issuance";
import { protectedProcedure, router } from "../rpc/trpc";
import { getCredential } from "./get-credential";
import { listCredentials } from "./list-credentials";
import { reinstateCredential } from "./reinstate-credential";
import { revokeCredential } from "./revoke-credential";
import { suspendCredential } from "./suspend-credential";

const TAGS = ["Credentials"];

export const credentialsRouter = router({
  issue: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/credentials/issuance",
        operationId: "Credentials_Issue",
        summary: "Issue a credential (creates an issuance transaction with its offer)",
        description:
          "Same as IssuanceTransactions_Create, but `issuerId` must be named explicitly: an API key is a tenant credential, not bound to one issuer.",
        tags: TAGS,
      },
      scopes: ["credentials.issue"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZCreateIssuanceTransactionRequest)
    .output(ZIssuanceTransactionResponse)
    .mutation(issueThroughTransaction({ requireExplicitIssuer: true })),

  revoke: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/credentials/{credentialId}/revoke",
        operationId: "Credentials_Revoke",
        summary: "Revoke a credential",
        description:
          "Irreversible and immediate: the credential's status list entry becomes INVALID and the next status list fetch shows it. Every copy of a batch (the credentials of one issuance transaction, those of further requests with its access token included) is revoked with it, and the transaction issues no more. Revoking a revoked credential returns its state (200). A credential issued without status (statusEnabled false) gives 400.",
        tags: TAGS,
      },
      scopes: ["credentials.revoke"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZRevokeCredentialRequest)
    .output(ZCredentialStatusResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await revokeCredential(ctx.deps, ctx.db, ctx.principal, input.credentialId),
    })),

  // Extensions of the contract (docs/api/credentials.md): the credential as a readable resource, and
  // suspension through the status list's second bit.
  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/credentials",
        operationId: "Credentials_List",
        summary: "List credentials",
        description:
          "The credentials issued in this tenant's environment (an issuer-bound key: its issuer's), newest first, with their state and never their claims. Filters combine with AND. An extension of the contract (docs/api/credentials.md).",
        tags: TAGS,
      },
      scopes: ["credentials.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListCredentialsRequest)
    .output(ZCredentialCollection)
    .query(({ ctx, input }) => listCredentials(ctx.deps, ctx.db, ctx.principal, input)),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/credentials/{credentialId}",
        operationId: "Credentials_Get",
        summary: "Get a credential",
        description:
          "An issued credential's metadata and state (`active`, `suspended`, `revoked`, `expired`), its status list entry and holder key thumbprint; never its claims, which are not kept. An extension of the contract (docs/api/credentials.md).",
        tags: TAGS,
      },
      scopes: ["credentials.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetCredentialRequest)
    .output(ZCredentialResponse)
    .query(async ({ ctx, input }) => ({
      data: await getCredential(ctx.deps, ctx.db, ctx.principal, input.credentialId),
    })),

  suspend: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/credentials/{credentialId}/suspend",
        operationId: "Credentials_Suspend",
        summary: "Suspend a credential",
        description:
          "Reversible: the credential's status list entry becomes SUSPENDED (2) and the next status list fetch shows it. Every active copy of its batch is suspended with it. Suspending a suspended credential returns its state (200, no event); a revoked credential gives 409 InvalidState; one issued without status (statusEnabled false) gives 400. An extension of the contract (docs/api/credentials.md).",
        tags: TAGS,
      },
      scopes: ["credentials.revoke"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZSuspendCredentialRequest)
    .output(ZCredentialResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await suspendCredential(ctx.deps, ctx.db, ctx.principal, input.credentialId),
    })),

  reinstate: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/credentials/{credentialId}/reinstate",
        operationId: "Credentials_Reinstate",
        summary: "Reinstate a suspended credential",
        description:
          "The credential's status list entry becomes VALID (0) again and the next status list fetch shows it; every suspended copy of its batch with it. Reinstating an active credential returns its state (200, no event); a revoked credential gives 409 InvalidState; one issued without status gives 400. An extension of the contract (docs/api/credentials.md).",
        tags: TAGS,
      },
      scopes: ["credentials.revoke"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZReinstateCredentialRequest)
    .output(ZCredentialResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await reinstateCredential(ctx.deps, ctx.db, ctx.principal, input.credentialId),
    })),
});
