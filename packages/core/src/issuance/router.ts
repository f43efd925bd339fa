import {
  ZCompleteAuthorizationRequest,
  ZCompleteAuthorizationResponse,
  ZCreateIssuanceTransactionRequest,
  ZIssuanceTransactionCollection,
  ZIssuanceTransactionResponse,
  ZListIssuanceTransactionsRequest,
  ZSupplyClaimsRequest,
  ZTransactionIdRequest,
} from "@cred/contracts/issuance";
import { protectedProcedure, router } from "../rpc/trpc";
import { completeAuthorization } from "./complete-authorization";
import { issueThroughTransaction } from "./create-issuance-transaction";
import { cancelIssuanceTransaction, getIssuanceTransaction } from "./get-issuance-transaction";
import { listIssuanceTransactions } from "./list-issuance-transactions";
import { supplyClaims } from "./supply-claims";

const TAGS = ["Issuance"];

export const issuanceTransactionsRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/issuance-transactions",
        operationId: "IssuanceTransactions_Create",
        summary: "Create an issuance transaction (credential offer)",
        description:
          "Validates the claims against the credential configuration and creates an OpenID4VCI credential offer (pre-authorized code flow). An issuer-bound key uses its issuer; otherwise name `issuerId`.",
        tags: TAGS,
      },
      scopes: ["credentials.issue"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZCreateIssuanceTransactionRequest)
    .output(ZIssuanceTransactionResponse)
    .mutation(issueThroughTransaction({ requireExplicitIssuer: false })),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/issuance-transactions/{transactionId}",
        operationId: "IssuanceTransactions_Get",
        summary: "Get an issuance transaction",
        tags: TAGS,
      },
      scopes: ["credentials.read"],
      errorStatuses: [401, 403, 404, 429],
    })
    .input(ZTransactionIdRequest)
    .output(ZIssuanceTransactionResponse)
    .query(async ({ ctx, input }) => ({
      data: await getIssuanceTransaction(ctx.deps, ctx.db, ctx.principal, input.transactionId),
    })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/issuance-transactions",
        operationId: "IssuanceTransactions_List",
        summary: "List issuance transactions",
        description:
          "This environment's transactions, newest first, filtered by state (a pending one past its expiry counts as `expired`), configuration, issuer, creation time and the caller's references. An issuer-bound key sees only its issuer's. Items never carry the offer link, offer URI or transaction code. An extension of the contract (docs/api/issuance.md).",
        tags: TAGS,
      },
      scopes: ["credentials.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListIssuanceTransactionsRequest)
    .output(ZIssuanceTransactionCollection)
    .query(({ ctx, input }) => listIssuanceTransactions(ctx.deps, ctx.db, ctx.principal, input)),

  cancel: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/issuance-transactions/{transactionId}/cancel",
        operationId: "IssuanceTransactions_Cancel",
        summary: "Cancel a pending issuance transaction",
        description: "pending → cancelled. A completed, cancelled or expired transaction gives 409.",
        tags: TAGS,
      },
      scopes: ["credentials.issue"],
      errorStatuses: [401, 403, 404, 409, 429],
    })
    .input(ZTransactionIdRequest)
    .output(ZIssuanceTransactionResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await cancelIssuanceTransaction(ctx.deps, ctx.db, ctx.principal, input.transactionId),
    })),

  supplyClaims: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/issuance-transactions/{transactionId}/claims",
        operationId: "IssuanceTransactions_SupplyClaims",
        summary: "Supply the claims of a deferred issuance transaction",
        description:
          "For a transaction created with `delivery.deferred`: the claims, validated against the configuration version it was created with. The wallet's next request then gets the credential. A transaction that is not pending, not deferred, or already has its claims gives 409. Accepts `Idempotency-Key`, so a retry after a lost answer replays it instead of 409.",
        tags: TAGS,
      },
      scopes: ["credentials.issue"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZSupplyClaimsRequest)
    .output(ZIssuanceTransactionResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await supplyClaims(ctx.deps, ctx.db, ctx.principal, input),
    })),

  completeAuthorization: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/v1.0/authorizations/complete",
        operationId: "Authorizations_Complete",
        summary: "Complete the person's authorization at the issuer's authorization page",
        description:
          "For issuers with an `authorizationPage`: the authorization endpoint sends the person there with `interaction`, `transaction_id` (or, for a wallet-initiated request, `credential_configuration_id`), `client_id`, `redirect_uri` and `wallet_attested`; once the integrator has signed the person in and asked for consent, it calls this with the decision (and, to approve a wallet-initiated request, the transaction it created for the person) and sends the browser to the returned `redirectTo`. The returned URL gives the wallet its code (or access_denied) only in the browser that opened the authorization endpoint. The handle is single use and valid 10 minutes (409 once completed or expired; 404 if unknown to the caller). Beyond the interface specification.",
        tags: TAGS,
      },
      scopes: ["credentials.issue"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZCompleteAuthorizationRequest)
    .output(ZCompleteAuthorizationResponse)
    // The handle is spent by the first call: a retry with its Idempotency-Key gets the same return URL again.
    .mutation(async ({ ctx, input }) => ({
      data: await completeAuthorization(ctx.deps, ctx.db, ctx.principal, input),
    })),
});
