import { z } from "zod";
import { EXAMPLE_CLAIM_VALUES, EXAMPLE_ISSUER_ID } from "./examples";
import { zInvocation } from "./invocation";
import { newestFirstCollectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";

export const ISSUANCE_STATUSES = ["pending", "completed", "cancelled", "expired"] as const;
export type IssuanceStatus = (typeof ISSUANCE_STATUSES)[number];

const zTxCodeRequest = z
  .strictObject({
    inputMode: z
      .enum(["numeric", "text"])
      .default("numeric")
      .meta({ description: "Characters the wallet asks the person for.", example: "numeric" }),
    length: z.int().min(4).max(12).default(6).meta({ description: "Number of characters.", example: 6 }),
    description: z.string().max(300).optional().meta({
      description: "Hint the wallet shows, e.g. where the code was sent.",
      example: "Sent to you by SMS",
    }),
  })
  .meta({ description: "Ask for a transaction code (tx_code) that the person enters in the wallet." });

export const zDelivery = z
  .strictObject({
    offerBy: z.enum(["reference", "value"]).default("reference").meta({
      description:
        "`reference`: the offer link carries `credential_offer_uri` (small QR codes); `value`: the offer itself.",
      example: "reference",
    }),
    grant: z.enum(["preAuthorizedCode", "authorizationCode"]).default("preAuthorizedCode").meta({
      description:
        "`preAuthorizedCode`: the offer carries a pre-authorized code the wallet redeems directly. `authorizationCode`: the offer carries an `issuer_state`, and the wallet runs the OAuth authorization code flow (pushed authorization request, PKCE S256, optionally DPoP), as HAIP wallets do. A `txCode` applies to `preAuthorizedCode` only.",
      example: "preAuthorizedCode",
    }),
    txCode: zTxCodeRequest.optional(),
    invocation: zInvocation("`openid-credential-offer://` (OpenID4VCI §4.1)", "`haip-vci://` (HAIP)"),
    expiresInSeconds: z
      .int()
      .min(60)
      .max(7 * 24 * 3600)
      .optional()
      .meta({ description: "Lifetime of the offer; default 15 minutes.", example: 900 }),
    deferred: z.boolean().default(false).meta({
      description:
        "Deferred issuance (OpenID4VCI §9): create the transaction without `claims` and supply them later with IssuanceTransactions_SupplyClaims, e.g. after a review. A wallet that asks for the credential before then gets a `transaction_id` and polls the deferred credential endpoint, for up to `deferredWaitSeconds`.",
      example: false,
    }),
    deferredWaitSeconds: z
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .optional()
      .meta({
        description:
          "With `deferred`: how long the transaction waits for its claims once the wallet has asked (the offer itself stays redeemable for `expiresInSeconds` only); default 3 days.",
        example: 259200,
      }),
  })
  .meta({ id: "IssuanceDelivery", description: "How the credential offer reaches the wallet." });

export const ZCreateIssuanceTransactionRequest = z
  .strictObject({
    credentialConfiguration: z.string().min(1).max(100).meta({
      description: "Identifier of the credential configuration to issue.",
      example: "membership-card",
    }),
    issuerId: z.string().max(64).nullish().meta({
      description:
        "Issuer to issue with. Taken from the key when it is bound to an issuer; required otherwise for Credentials_Issue.",
      example: EXAMPLE_ISSUER_ID,
    }),
    claims: z
      .record(z.string(), z.unknown())
      .nullish()
      .meta({
        description: "Claim values, validated against the configuration's declared claims.",
        example: { given_name: "Erika", family_name: "Mustermann", birthdate: "1984-01-26" },
      }),
    callbackReference: z
      .string()
      .max(200)
      .nullish()
      .meta({ description: "Caller's reference, returned in events.", example: "order-8812" }),
    externalSubjectReference: z
      .string()
      .max(200)
      .nullish()
      .meta({ description: "Caller's id for the person; returned in events.", example: "crm-4411" }),
    delivery: zDelivery.optional(),
  })
  .meta({ id: "CreateIssuanceTransactionRequest" });
// Also Credentials_Issue's: it names the issuer, as that operation needs.
registerRequestExample(ZCreateIssuanceTransactionRequest, [], {
  credentialConfiguration: "membership-card",
  issuerId: EXAMPLE_ISSUER_ID,
  claims: EXAMPLE_CLAIM_VALUES,
  callbackReference: "order-8812",
  externalSubjectReference: "crm-4411",
  delivery: {
    offerBy: "reference",
    grant: "preAuthorizedCode",
    txCode: { inputMode: "numeric", length: 6, description: "Sent to you by SMS" },
    expiresInSeconds: 900,
  },
});
export type TCreateIssuanceTransactionRequest = z.infer<typeof ZCreateIssuanceTransactionRequest>;

const zDeferral = z
  .object({
    claimsSuppliedAt: z.string().nullable().meta({
      description: "When IssuanceTransactions_SupplyClaims supplied the claims; null while they are awaited.",
    }),
    walletWaitingSince: z.string().nullable().meta({
      description:
        "When the wallet asked for the credential and was told to come back (HTTP 202, `issuance.transaction.deferred`); null before.",
    }),
  })
  .meta({ id: "IssuanceDeferral" });

export const zIssuanceTransaction = z
  .object({
    id: z.string().meta({ description: "Transaction id.", example: "itx_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    status: z.enum(ISSUANCE_STATUSES).meta({ description: "Lifecycle state.", example: "pending" }),
    issuerId: z.string().meta({ description: "Issuer that signs the credential." }),
    credentialConfiguration: z.string().meta({ description: "Credential configuration identifier." }),
    credentialOffer: z.string().nullable().meta({
      description:
        "The offer link a wallet opens (what a QR code encodes); null once the offer was redeemed, cancelled or expired, and for callers without the credentials.issue scope (whoever holds the link can claim the credential).",
      example: "openid-credential-offer://?credential_offer_uri=https%3A%2F%2F…",
    }),
    credentialOfferUri: z.string().nullable().meta({
      description:
        "URI the wallet fetches the offer from (offerBy=reference); null otherwise, when no longer pending, or for callers without the credentials.issue scope.",
    }),
    txCode: z.string().nullable().meta({
      description: "The transaction code, returned once at creation so the caller can send it out of band.",
      example: "493817",
    }),
    expiresAt: z.string().meta({
      description:
        "When the offer stops being redeemable (ISO 8601). Redeeming the code moves it to at least the access token's expiry.",
    }),
    credentialId: z.string().nullable().meta({
      description:
        "The issued credential, once completed: with a batch or further requests with the same access token (OpenID4VCI §14.3), the first one; the events issuance.transaction.completed and .reissued name every one.",
    }),
    callbackReference: z.string().nullable().meta({ description: "The caller's reference, as sent." }),
    externalSubjectReference: z
      .string()
      .nullable()
      .meta({ description: "The caller's id for the person, as sent." }),
    createdAt: z.string().meta({ description: "Creation time (ISO 8601)." }),
    completedAt: z.string().nullable().meta({ description: "When the wallet received the credential." }),
    cancelledAt: z.string().nullable().meta({ description: "When the transaction was cancelled." }),
    deferral: zDeferral.nullable().meta({
      description: "Deferred issuance (`delivery.deferred`); null for a transaction created with its claims.",
    }),
  })
  .meta({ id: "IssuanceTransaction", description: "One credential offer and its outcome." });
export type TIssuanceTransaction = z.infer<typeof zIssuanceTransaction>;

export const ZIssuanceTransactionResponse = resourceOf(zIssuanceTransaction).meta({
  id: "ApiEnvelopeOfIssuanceTransactionResponse",
});

export const ZTransactionIdRequest = z.object({
  // No length limit: an id that cannot exist is a 404 like any other unknown id (the operations list no 400).
  transactionId: z
    .string()
    .meta({ description: "Issuance transaction id.", example: "itx_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
});

// Authorizations_Complete (beyond the interface specification: docs/api/issuance.md)
export const ZCompleteAuthorizationRequest = z.strictObject({
  interaction: z.string().min(1).max(256).meta({
    description:
      "The `interaction` query parameter the authorization endpoint sent the person to the issuer's authorization page with.",
    example: "Zr4V0m7Q9Qm3cS8nT1xY2a6Lk0pBfW5uE7hJd3gN4sA",
  }),
  decision: z.enum(["approve", "deny"]).meta({
    description:
      "`approve`: the person signed in as the transaction's subject and consented; the wallet gets an authorization code. `deny`: the wallet gets `access_denied`, and the offer stays pending.",
    example: "approve",
  }),
  transactionId: z.string().max(64).optional().meta({
    description:
      'The issuance transaction that answers the request. An offer\'s request has its own (the `transaction_id` the page was opened with; if sent, it must be that one). A wallet-initiated request (the page was opened with `credential_configuration_id` instead) needs one to be approved: a pending transaction of the same issuer and configuration, created with `delivery.grant: "authorizationCode"` for the person who signed in.',
    example: "itx_01j9z3k8m2x4v6b8n0p2q4s6t8",
  }),
});
// The shape only: an `interaction` comes from the authorization endpoint, with the person's browser.
registerRequestExample(ZCompleteAuthorizationRequest, [], {
  interaction: "Zr4V0m7Q9Qm3cS8nT1xY2a6Lk0pBfW5uE7hJd3gN4sA",
  decision: "approve",
});
export type TCompleteAuthorizationRequest = z.infer<typeof ZCompleteAuthorizationRequest>;

const zCompletedAuthorization = z
  .object({
    redirectTo: z.string().meta({
      description:
        "Where to send the person's browser now (302 or 303): the issuer's return URL with a one-time result, which sends the browser that opened the authorization endpoint on to the wallet with `code`, `state` and `iss`, or with `error=access_denied`.",
      example: "https://credentials.example/issuers/iss_01j9z3k8m2x4v6b8n0p2q4s6t8/authorize/return?result=…",
    }),
    approved: z.boolean().meta({
      description:
        "Whether the wallet is to get a code: false when denied, or when the offer is no longer pending (cancelled, expired or redeemed meanwhile).",
      example: true,
    }),
  })
  .meta({ id: "CompletedAuthorization" });
export const ZCompleteAuthorizationResponse = resourceOf(zCompletedAuthorization).meta({
  id: "ApiEnvelopeOfCompletedAuthorization",
});

// IssuanceTransactions_SupplyClaims (beyond the interface specification: docs/api/issuance.md)
export const ZSupplyClaimsRequest = ZTransactionIdRequest.extend({
  claims: z.record(z.string(), z.unknown()).meta({
    description:
      "The claim values, validated against the version of the configuration the transaction was created with.",
    example: { given_name: "Erika", family_name: "Mustermann" },
  }),
});
registerRequestExample(ZSupplyClaimsRequest, ["transactionId"], { claims: EXAMPLE_CLAIM_VALUES });
export type TSupplyClaimsRequest = z.infer<typeof ZSupplyClaimsRequest>;

// IssuanceTransactions_List (beyond the interface specification: docs/api/issuance.md)
const zListTime = z.iso.datetime({ offset: true });

export const ZListIssuanceTransactionsRequest = zListQuery.extend({
  status: z.enum(ISSUANCE_STATUSES).optional().meta({
    description:
      "Only transactions in this state, as IssuanceTransactions_Get shows it (a pending one past its expiry counts as `expired`).",
    example: "completed",
  }),
  credentialConfiguration: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "Only this credential configuration (identifier).", example: "membership-card" }),
  issuerId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: "Only this issuer's transactions.", example: EXAMPLE_ISSUER_ID }),
  createdFrom: zListTime.optional().meta({ description: "Only transactions created at or after this time." }),
  createdTo: zListTime.optional().meta({ description: "Only transactions created before this time." }),
  externalSubjectReference: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Only transactions with this subject reference (exact).", example: "crm-4411" }),
  callbackReference: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Only transactions with this callback reference (exact).", example: "order-8812" }),
});
export type TListIssuanceTransactionsRequest = z.infer<typeof ZListIssuanceTransactionsRequest>;

export const ZIssuanceTransactionCollection = newestFirstCollectionOf(
  zIssuanceTransaction,
  "This page's transactions, newest first. `credentialOffer`, `credentialOfferUri` and `txCode` are always null in a list: the offer is a bearer credential, handed out only by IssuanceTransactions_Create and _Get.",
).meta({ id: "ApiCollectionOfIssuanceTransaction" });
