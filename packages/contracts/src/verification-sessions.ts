import { z } from "zod";
import { zCreateDcApiOptions, zDcApiRequest } from "./dc-api";
import { zInvocation } from "./invocation";
import { newestFirstCollectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";

export const VERIFICATION_SESSION_STATUSES = [
  "pending",
  "verified",
  "rejected",
  "expired",
  "cancelled",
] as const;
export type VerificationSessionStatus = (typeof VERIFICATION_SESSION_STATUSES)[number];

// No length limit: an id that cannot exist is a 404 like any other unknown id (the operations list no 400).
const zSessionId = z
  .string()
  .min(1)
  .meta({ description: "The verification session's id.", example: "vs_01jd5x6c3v8w9y0z1a2b3c4d5e" });

// Verifications_Create
/** Members OpenID4VP defines for every transaction data object; `fields` cannot set them. */
export const TRANSACTION_DATA_RESERVED = ["type", "credential_ids", "transaction_data_hashes_alg"] as const;

const zTransactionData = z
  .strictObject({
    type: z.string().min(1).max(200).meta({
      description: "The transaction data type (collision-resistant name recommended).",
      example: "https://pay.example/payment",
    }),
    credentialIds: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(10)
      .meta({
        description:
          "Ids of the policy's credentials (DCQL credential query ids) that may authorise it; the wallet uses one. Each must require holder binding.",
        example: ["pid"],
      }),
    fields: z
      .record(z.string().min(1).max(100), z.unknown())
      .optional()
      .meta({
        description: "The type's own members, sent as top-level members of the object.",
        example: { amount: "42.00", currency: "EUR", payee: "Acme Shop" },
      }),
  })
  .meta({
    id: "TransactionData",
    description: "One transaction data object for the wallet (OpenID4VP §5.1).",
  });
export type TTransactionData = z.infer<typeof zTransactionData>;

export const ZCreateVerificationRequest = z
  .strictObject({
    policy: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: "Identifier of a server-managed verification policy.", example: "over-18" }),
    purpose: z.string().trim().min(1).max(500).nullish().meta({
      description: "Why the claims are asked for; defaults to the policy's purpose.",
      example: "Age check at checkout",
    }),
    invocation: zInvocation("`openid4vp://` (OpenID4VP §13.1.2)", "`haip-vp://` (HAIP)"),
    transactionData: z.array(zTransactionData).min(1).max(10).optional().meta({
      description:
        "What the holder is asked to authorise with the presentation (OpenID4VP §5.1 `transaction_data`, e.g. a payment): each item is sent to the wallet as given, and the wallet must return its SHA-256 hash in the key binding JWT of a credential it names (Appendix B.3.3), or the session is rejected (`transaction_data_not_authorized`). Only wallets that support transaction data can answer such a request.",
    }),
    dcApi: zCreateDcApiOptions.optional(),
    requestByValue: z.boolean().optional().meta({
      description:
        "Put the signed request object itself in `authorizationRequestUri` (`request=`, OpenID4VP §5 / RFC 9101) instead of a `request_uri` the wallet fetches: for short-lived same-device links, where the wallet needs no second round trip. The link is longer (several kB: too long for most QR codes), carries no `wallet_nonce` and names no wallet audience. Not with `dcApi` (400), nor for policies whose `clientIdPrefix` is `redirect_uri` (their requests are always by value, unsigned).",
      example: false,
    }),
  })
  .meta({ id: "CreateVerificationSessionRequest" });
registerRequestExample(ZCreateVerificationRequest, [], {
  policy: "over-18",
  purpose: "Age check at checkout",
});
export type TCreateVerificationRequest = z.infer<typeof ZCreateVerificationRequest>;

// Verifications_Get
export const ZGetVerificationRequest = z.object({
  verificationId: zSessionId,
  responseCode: z.string().min(1).max(256).optional().meta({
    description:
      "The `response_code` the wallet's same-device redirect delivered. When given, it must belong to this session (400 otherwise).",
  }),
});

// VerificationSessions_Get / _Cancel
export const ZSessionIdParams = z.object({ id: zSessionId });

// VerificationSessions_Submit
export const ZSubmitVerificationSessionRequest = z
  .strictObject({
    id: zSessionId,
    credentialId: z.string().min(1).max(64).meta({
      description: "Id of the platform credential presented in `sdJwtVc`.",
      example: "cred_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
    sdJwtVc: z
      .string()
      .min(1)
      .max(256 * 1024)
      .meta({
        description:
          "The presented SD-JWT VC (`<issuer-jwt>~<disclosures>~<kb-jwt>`); its KB-JWT carries `aud` = the request's client_id and the request's `nonce` (read both from the request object at `requestUri`).",
      }),
    audience: z.string().max(512).nullish().meta({
      description: "The audience the presentation was made for; must equal the session's client_id.",
    }),
  })
  .meta({ id: "SubmitVerificationSessionRequest" });
// The shape only: a presentation is made by the holder's wallet for the session's nonce and client_id.
registerRequestExample(ZSubmitVerificationSessionRequest, ["id"], {
  credentialId: "cred_01jd5x6c3v8w9y0z1a2b3c4d5e",
  sdJwtVc:
    "eyJhbGciOiJFUzI1NiIsInR5cCI6ImRjK3NkLWp3dCJ9.eyJ2Y3QiOiLigKYifQ.c2ln~WyJzYWx0IiwiZ2l2ZW5fbmFtZSIsIkVyaWthIl0~eyJhbGciOiJFUzI1NiIsInR5cCI6ImtiK2p3dCJ9.eyJub25jZSI6IuKApiJ9.c2ln",
});
export type TSubmitVerificationSessionRequest = z.infer<typeof ZSubmitVerificationSessionRequest>;

const zCheckOutcome = z.enum(["passed", "skipped"]);

export const zVerificationReason = z
  .object({
    code: z.string().meta({ description: "Stable reason code.", example: "kb_nonce_mismatch" }),
    message: z.string().meta({ description: "Human-readable explanation." }),
    credentialQueryId: z
      .string()
      .optional()
      .meta({ description: "The policy credential id the reason concerns.", example: "pid" }),
  })
  .meta({ id: "VerificationReason" });

export const zVerifiedCredential = z
  .object({
    credentialQueryId: z
      .string()
      .meta({ description: "The policy credential id it answers.", example: "pid" }),
    credentialType: z
      .string()
      .meta({ description: "The credential's `vct`.", example: "https://credentials.example.com/pid" }),
    issuer: z.string().meta({ description: "The credential's `iss`." }),
    issuerId: z
      .string()
      .nullable()
      .meta({ description: "The platform issuer that signed it, null for external issuers." }),
    claims: z
      .record(z.string(), z.unknown())
      .meta({ description: "Only the claims the policy asked for (claim-minimised)." }),
    checks: z.record(z.string(), zCheckOutcome).meta({
      description: "Checks performed: issuerSignature, disclosures, validityPeriod, holderBinding, status, …",
      example: { issuerSignature: "passed", holderBinding: "passed", status: "passed" },
    }),
  })
  .meta({ id: "VerifiedCredential" });

export const zVerificationResult = z
  .object({
    decidedAt: z
      .string()
      .meta({ description: "When the session was decided (ISO 8601).", example: ISO_EXAMPLE }),
    outcome: z.enum(["verified", "rejected"]).meta({ description: "The decision." }),
    reasons: z.array(zVerificationReason).optional().meta({
      description:
        "Why the outcome is `rejected`; with `verified`, why presentations were discarded (OpenID4VP §8.6).",
    }),
    credentials: z
      .array(zVerifiedCredential)
      .meta({ description: "The verified credentials, with only the claims the policy asked for." }),
  })
  .meta({ id: "VerificationResult" });
export type TVerificationResult = z.infer<typeof zVerificationResult>;

export const zVerificationSession = z
  .object({
    id: zSessionId,
    status: z
      .enum(VERIFICATION_SESSION_STATUSES)
      .meta({ description: "Lifecycle state.", example: "pending" }),
    policy: z.string().meta({ description: "Identifier of the policy.", example: "over-18" }),
    purpose: z.string().nullable().meta({
      description: "Why the claims are asked for, shown to the holder.",
      example: "Age check at checkout",
    }),
    relyingPartyId: z.string().optional().meta({
      description:
        "Present when the verification was for a relying party this tenant acts for as an intermediary (its policy's `relyingPartyId` when it was created): the request named that relying party through its registration certificates in `verifier_info`.",
      example: "rp_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
    authorizationRequestUri: z.string().meta({
      description: "`openid4vp://?client_id=…&request_uri=…`: what a QR code or same-device link carries.",
    }),
    requestUri: z.string().meta({ description: "URL of the signed request object." }),
    expiresAt: z
      .string()
      .meta({ description: "When a pending session expires (ISO 8601).", example: ISO_EXAMPLE }),
    createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
    result: zVerificationResult.optional().meta({
      description:
        "Present once the session is `verified` or `rejected`, unless withheld (`resultWithheld`).",
    }),
    transactionData: z.array(zTransactionData).optional().meta({
      description: "The transaction data the request asks the holder to authorise, as created.",
    }),
    dcApiRequest: zDcApiRequest.optional(),
    resultWithheld: z.literal(true).optional().meta({
      description:
        "Present (true) when the session is decided but its policy shows the result only to a Verifications_Get that passes the `responseCode` its same-device redirect delivered (`requireResponseCode`). Do not act on `status` alone then.",
      example: true,
    }),
  })
  .meta({ id: "VerificationSessionResponse", description: "A verification session (OpenID4VP)." });
export type TVerificationSession = z.infer<typeof zVerificationSession>;

export const ZVerificationSessionResponse = resourceOf(zVerificationSession).meta({
  id: "ApiEnvelopeOfVerificationSessionResponse",
});

// VerificationSessions_List (beyond the interface specification: docs/api/verification.md)
const zListTime = z.iso.datetime({ offset: true });

export const ZListVerificationSessionsRequest = zListQuery.extend({
  status: z.enum(VERIFICATION_SESSION_STATUSES).optional().meta({
    description:
      "Only sessions in this state, as VerificationSessions_Get shows it (a pending one past its expiry counts as `expired`).",
    example: "rejected",
  }),
  policy: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: "Only sessions under this policy (identifier).", example: "over-18" }),
  createdFrom: zListTime.optional().meta({ description: "Only sessions created at or after this time." }),
  createdTo: zListTime.optional().meta({ description: "Only sessions created before this time." }),
  reason: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.:-]+$/)
    .optional()
    .meta({
      description:
        "Only decided sessions whose result carries this reason code (`result.reasons[].code`), e.g. why it was rejected.",
      example: "kb_nonce_mismatch",
    }),
});
export type TListVerificationSessionsRequest = z.infer<typeof ZListVerificationSessionsRequest>;

export const ZVerificationSessionCollection = newestFirstCollectionOf(
  zVerificationSession,
  "This page's sessions, newest first, each as VerificationSessions_Get shows it (a withheld result stays withheld).",
).meta({ id: "ApiCollectionOfVerificationSession" });
