import { ZCredentialStatusResponse, ZRevokeCredentialRequest } from "@cred/contracts/credentials";
import {
  issueThroughTransaction,
  ZCreateIssuanceTransactionRequest,
  ZIssuanceTransactionResponse,
} from "../issuance";
import { protectedProcedure, router } from "../rpc/trpc";
import { revokeCredential } from "./revoke-credential";

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
    .mutation(issueThroughTransaction("Credentials_Issue", { requireExplicitIssuer: true })),

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
});
