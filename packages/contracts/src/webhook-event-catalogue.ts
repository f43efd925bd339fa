import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./webhook-events";

/**
 * The event catalogue (DESIGN §7): every webhook event type with the schema of its `data`. Payloads
 * carry ids, states and caller references only, never credential claims or personal data. The
 * schemas document what the emitting operations write (`emitEvent`); the worker sends `data` as stored.
 */

const id = (description: string, example: string) => z.string().meta({ description, example });
const nullableRef = (description: string) =>
  z.string().nullable().meta({ description, example: "order-4711" });

const zIssuanceTransactionData = (status: string, extra: z.ZodRawShape = {}) =>
  z.object({
    transactionId: id("The issuance transaction's id.", "itx_01jd5x6c3v8w9y0z1a2b3c4d5e"),
    issuerId: id("The issuer's id.", "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"),
    credentialConfiguration: id("Identifier of the credential configuration.", "employee-badge"),
    status: z.literal(status).meta({ description: "The transaction's state after the change." }),
    ...extra,
    callbackReference: nullableRef("The caller's reference given at creation."),
    externalSubjectReference: nullableRef("The caller's subject reference given at creation."),
  });

const zVerificationSessionData = (status: string) =>
  z.object({
    verificationSessionId: id("The verification session's id.", "vs_01jd5x6c3v8w9y0z1a2b3c4d5e"),
    status: z.literal(status).meta({ description: "The session's state after the change." }),
    policy: id("Identifier of the verification policy.", "over-18"),
  });

const zVerificationPolicyData = (status: string) =>
  z.object({
    identifier: id("The verification policy's identifier.", "over-18"),
    displayName: z.string().meta({ description: "The policy's display name.", example: "Age over 18" }),
    status: z.literal(status).meta({ description: "The policy's state after the change." }),
  });

interface CatalogueEntry {
  /** Component name in the OpenAPI document (`<name>Event`). */
  name: string;
  description: string;
  data: z.ZodObject;
}

/** A credential's state change (revoked, suspended, reinstated); one event per copy of a batch. */
const zCredentialStateData = (status: string) =>
  z.object({
    credentialId: id("The credential's id.", "cred_01jd5x6c3v8w9y0z1a2b3c4d5e"),
    issuerId: id("The issuer's id.", "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"),
    credentialConfiguration: id("Identifier of the credential configuration.", "employee-badge"),
    transactionId: id("The issuance transaction that issued it.", "itx_01jd5x6c3v8w9y0z1a2b3c4d5e"),
    status: z.literal(status).meta({ description: "The credential's state after the change." }),
  });

/** A wallet's OpenID4VCI notification about the credentials of one issuance transaction. */
const walletNotification = <T extends WebhookEventType>(
  type: T,
  name: string,
  event: string,
  description: string,
): Record<T, CatalogueEntry> =>
  ({
    [type]: {
      name,
      description,
      data: z.object({
        transactionId: id(
          "The issuance transaction whose credentials the wallet reports on.",
          "itx_01jd5x6c3v8w9y0z1a2b3c4d5e",
        ),
        issuerId: id("The issuer's id.", "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"),
        credentialIds: z.array(z.string()).meta({ description: "The credentials of that transaction." }),
        event: z.literal(event).meta({ description: "The wallet's notification event (OpenID4VCI §11)." }),
      }),
    },
  }) as unknown as Record<T, CatalogueEntry>;

export const EVENT_CATALOGUE: Record<WebhookEventType, CatalogueEntry> = {
  "issuance.transaction.created": {
    name: "IssuanceTransactionCreated",
    description: "An issuance transaction was created (IssuanceTransactions_Create); its offer is pending.",
    data: zIssuanceTransactionData("pending"),
  },
  "issuance.transaction.completed": {
    name: "IssuanceTransactionCompleted",
    description: "The wallet redeemed the offer and received its credential(s).",
    data: zIssuanceTransactionData("completed", {
      credentialIds: z.array(z.string()).meta({
        description: "Ids of the credentials issued.",
        example: ["cred_01jd5x6c3v8w9y0z1a2b3c4d5e"],
      }),
    }),
  },
  "issuance.transaction.reissued": {
    name: "IssuanceTransactionReissued",
    description:
      "The wallet asked again with the access token of a completed transaction (OpenID4VCI §14.3: its first answer was lost, or it wants fresh copies) and received further credentials: new status entries, recorded against the transaction like the first (revoking any of them revokes all). Possible while the access token lives (5 minutes from the code's redemption); the transaction completes only once.",
    data: zIssuanceTransactionData("completed", {
      credentialIds: z.array(z.string()).meta({
        description: "Ids of the credentials issued by this request.",
        example: ["cred_01jd5x6c3v8w9y0z1a2b3c4d5e"],
      }),
    }),
  },
  "issuance.transaction.deferred": {
    name: "IssuanceTransactionDeferred",
    description:
      "The wallet asked for the credential of a deferred transaction before its claims were supplied; it was told to come back (HTTP 202) and waits. Supply the claims with IssuanceTransactions_SupplyClaims.",
    data: zIssuanceTransactionData("pending"),
  },
  "issuance.transaction.cancelled": {
    name: "IssuanceTransactionCancelled",
    description: "A pending issuance transaction was cancelled (IssuanceTransactions_Cancel).",
    data: zIssuanceTransactionData("cancelled"),
  },
  "issuance.transaction.expired": {
    name: "IssuanceTransactionExpired",
    description:
      "A pending issuance transaction reached its expiry unredeemed. Emitted once by the background sweeper (within about a minute of the expiry).",
    data: zIssuanceTransactionData("expired"),
  },
  "credential.revoked": {
    name: "CredentialRevoked",
    description: "A credential was revoked (Credentials_Revoke); its status list entry now says so.",
    data: zCredentialStateData("revoked"),
  },
  "credential.suspended": {
    name: "CredentialSuspended",
    description:
      "A credential was suspended (Credentials_Suspend); its status list entry now says SUSPENDED (2). One event per copy of the batch.",
    data: zCredentialStateData("suspended"),
  },
  "credential.reinstated": {
    name: "CredentialReinstated",
    description:
      "A suspended credential was reinstated (Credentials_Reinstate); its status list entry is VALID (0) again. One event per copy of the batch.",
    data: zCredentialStateData("active"),
  },
  ...walletNotification(
    "credential.accepted",
    "CredentialAccepted",
    "credential_accepted",
    "The wallet reported that it accepted and stored the credential(s) (OpenID4VCI notification).",
  ),
  ...walletNotification(
    "credential.failed",
    "CredentialFailed",
    "credential_failure",
    "The wallet reported that storing the credential(s) failed (OpenID4VCI notification).",
  ),
  ...walletNotification(
    "credential.deleted",
    "CredentialDeleted",
    "credential_deleted",
    "The wallet reported that the holder deleted the credential(s) (OpenID4VCI notification).",
  ),
  "verification.session.created": {
    name: "VerificationSessionCreated",
    description: "A verification session was created (Verifications_Create); it waits for the wallet.",
    data: zVerificationSessionData("pending"),
  },
  "verification.session.verified": {
    name: "VerificationSessionVerified",
    description:
      "The wallet's presentation passed every check. Fetch the session for the (claim-minimised) result; the event carries no claims.",
    data: zVerificationSessionData("verified"),
  },
  "verification.session.rejected": {
    name: "VerificationSessionRejected",
    description: "The wallet's presentation failed a check. Fetch the session for the reasons.",
    data: zVerificationSessionData("rejected"),
  },
  "verification.session.cancelled": {
    name: "VerificationSessionCancelled",
    description: "A pending verification session was cancelled.",
    data: zVerificationSessionData("cancelled"),
  },
  "verification.session.expired": {
    name: "VerificationSessionExpired",
    description:
      "A pending verification session reached its expiry unanswered. Emitted once, either when the session is read after its expiry or by the background sweeper, whichever comes first.",
    data: zVerificationSessionData("expired"),
  },
  "issuer.activated": {
    name: "IssuerActivated",
    description: "An issuer was activated (Issuers_Activate) and can issue.",
    data: z.object({
      issuerId: id("The issuer's id.", "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"),
      organisationReference: id("Reference of the issuer's organisation.", "acme"),
      credentialIssuer: id(
        "The issuer's credential issuer identifier (URL).",
        "https://credentials.example.com/issuers/iss_01jd5x6c3v8w9y0z1a2b3c4d5e",
      ),
      activatedAt: z
        .string()
        .meta({ description: "Activation time (ISO 8601).", example: "2026-08-30T12:00:00.000Z" }),
    }),
  },
  "credential_configuration.created": {
    name: "CredentialConfigurationCreated",
    description: "A credential configuration was created with its version 1 active.",
    data: z.object({
      credentialConfigurationId: id("The configuration's id.", "cc_01jd5x6c3v8w9y0z1a2b3c4d5e"),
      identifier: id("The configuration's identifier.", "employee-badge"),
      issuerId: id("The issuer's id.", "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"),
      credentialType: id("The SD-JWT VC `vct`.", "https://credentials.example.com/vct/employee-badge"),
      version: z.number().int().meta({ description: "The active version.", example: 1 }),
    }),
  },
  "credential_configuration.version_activated": {
    name: "CredentialConfigurationVersionActivated",
    description:
      "Another version of a credential configuration became the active one (a new version, or an earlier one activated again); transactions created from now on use it.",
    data: z.object({
      credentialConfigurationId: id("The configuration's id.", "cc_01jd5x6c3v8w9y0z1a2b3c4d5e"),
      identifier: id("The configuration's identifier.", "employee-badge"),
      issuerId: id("The issuer's id.", "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"),
      credentialType: id("The SD-JWT VC `vct`.", "https://credentials.example.com/vct/employee-badge"),
      version: z.number().int().meta({ description: "The version now active.", example: 2 }),
      previousVersion: z.number().int().meta({ description: "The version active before.", example: 1 }),
    }),
  },
  "verification_policy.suspended": {
    name: "VerificationPolicySuspended",
    description: "A verification policy was suspended; new verifications under it are refused.",
    data: zVerificationPolicyData("suspended"),
  },
  "verification_policy.reactivated": {
    name: "VerificationPolicyReactivated",
    description: "A suspended verification policy was reactivated.",
    data: zVerificationPolicyData("active"),
  },
  "trust_source.refresh_failed": {
    name: "TrustSourceRefreshFailed",
    description:
      "A trust source's list could not be fetched or did not verify; the last good copy is kept (stale while its NextUpdate has not passed).",
    data: z.object({
      trustSourceId: id("The trust source's id.", "ts_01jd5x6c3v8w9y0z1a2b3c4d5e"),
      url: id("Where the list is fetched from.", "https://tl.example/lotl.xml"),
      status: z.enum(["pending", "current", "stale", "expired"]).meta({
        description: "The trust source's status after the failure.",
        example: "stale",
      }),
      code: id(
        "Why: BadSignature, UnknownSigner, ListExpired, WrongReference, UnsupportedAlgorithm, MalformedList, SequenceNumberDecreased or FetchFailed.",
        "BadSignature",
      ),
      message: id("What failed, in words.", "the signature does not verify"),
    }),
  },
  "trust_source.expired": {
    name: "TrustSourceExpired",
    description:
      "A list of a trust source's last good copy has passed its NextUpdate without a successful refresh: the services of that list are no longer trusted until a refresh succeeds. Sent once per lapsed copy.",
    data: z.object({
      trustSourceId: id("The trust source's id.", "ts_01jd5x6c3v8w9y0z1a2b3c4d5e"),
      url: id("Where the list is fetched from.", "https://tl.example/lotl.xml"),
      nextUpdate: z.string().meta({
        description: "The NextUpdate (ISO 8601) that passed: the earliest of the copy's lists.",
        example: "2026-08-30T12:00:00.000Z",
      }),
    }),
  },
  "verifier_certificate.expiring": {
    name: "VerifierCertificateExpiring",
    description:
      "The verifier certificate in use (the access certificate request objects are signed with) expires within the notice window (CERTIFICATE_EXPIRY_NOTICE_DAYS, default 30 days), or had expired when first seen. Sent once per certificate; import a renewed one (VerifierCertificates_CreateSigningRequest, VerifierCertificates_ImportAccessCertificate).",
    data: z.object({
      subject: id(
        "The leaf certificate's subject, as VerifierCertificates_Get shows it.",
        "CN=verifier.example.com, O=Webshop Oy, 2.5.4.97=VATFI-12345678, C=FI",
      ),
      serialNumber: id(
        "The leaf certificate's serial number (hex), as VerifierCertificates_Get shows it.",
        "4F3A9C",
      ),
      accessCertificate: z.boolean().meta({
        description: "Whether it is an access certificate (its subject has an organizationIdentifier).",
        example: true,
      }),
      organisationIdentifiers: z
        .array(z.string())
        .meta({ description: "The subject's organizationIdentifier values.", example: ["VATFI-12345678"] }),
      expiresAt: z.string().meta({
        description: "The leaf certificate's notAfter (ISO 8601).",
        example: "2026-08-30T12:00:00.000Z",
      }),
      daysLeft: z.number().int().meta({
        description: "Whole days until it expires, rounded up (0 or less: already expired).",
        example: 30,
      }),
    }),
  },
  "registration_certificate.expiring": {
    name: "RegistrationCertificateExpiring",
    description:
      "The registration certificate (WRPRC) expires within the notice window (CERTIFICATE_EXPIRY_NOTICE_DAYS, default 30 days), or had expired when first seen; once expired, verifications are refused (409 NotRegistered). Sent once per certificate; upload a renewed one (VerifierRegistrationCertificates_Upload).",
    data: z.object({
      registrationCertificateId: id(
        "The registration certificate's id (VerifierRegistrationCertificates_GetById; the default one's too).",
        "vreg_01jd5x6c3v8w9y0z1a2b3c4d5e",
      ),
      relyingParty: z
        .string()
        .nullable()
        .meta({ description: "The registered relying party's name.", example: "Webshop" }),
      relyingPartyIds: z
        .array(z.string())
        .meta({ description: "The relying party's identifiers (sub).", example: ["VATFI-12345678"] }),
      expiresAt: z
        .string()
        .meta({ description: "Its `exp` (ISO 8601).", example: "2026-08-30T12:00:00.000Z" }),
      daysLeft: z.number().int().meta({
        description: "Whole days until it expires, rounded up (0 or less: already expired).",
        example: 30,
      }),
    }),
  },
  "verification_policy.version_activated": {
    name: "VerificationPolicyVersionActivated",
    description:
      "Another version of a verification policy became the active one (a new version, or an earlier one activated again); verifications started from now on run under it, those started earlier keep theirs.",
    data: z.object({
      identifier: id("The verification policy's identifier.", "over-18"),
      displayName: z
        .string()
        .meta({ description: "The active version's display name.", example: "Age over 18" }),
      status: z.enum(["active", "suspended"]).meta({
        description: "The policy's state (a version change does not change it).",
        example: "active",
      }),
      version: z.number().int().meta({ description: "The version now active.", example: 2 }),
      previousVersion: z.number().int().meta({ description: "The version active before.", example: 1 }),
    }),
  },
};

/** True for the event types a webhook subscription can receive (others stay internal to the outbox). */
export function isCatalogued(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

/** The schema of the webhook body `{ type, timestamp, data }` for one event type. */
export function webhookBodySchema(type: WebhookEventType) {
  const entry = EVENT_CATALOGUE[type];
  return z
    .object({
      type: z.literal(type).meta({ description: "The event type." }),
      timestamp: z.string().meta({
        description: "When the event occurred (ISO 8601). The same on every retry.",
        example: "2026-08-30T12:00:00.000Z",
      }),
      data: entry.data.meta({
        description: "The event payload: ids, states and caller references, never claims.",
      }),
    })
    .meta({ description: entry.description });
}

/** The webhook body as sent: the stored payload of the event, under its type and occurrence time. */
export function webhookBody(event: { type: string; occurredAt: Date; payload: unknown }): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: event.payload });
}

/**
 * OpenAPI 3.1 fragments for the catalogue: one component schema per event body, and a top-level
 * `webhooks` entry per event type describing the signed POST the receiver gets.
 */
export function eventCatalogueOpenApi(): {
  schemas: Record<string, unknown>;
  webhooks: Record<string, unknown>;
} {
  const schemas: Record<string, unknown> = {};
  const webhooks: Record<string, unknown> = {};
  const header = (description: string, example: string) => ({
    in: "header",
    required: true,
    description,
    schema: { type: "string" },
    example,
  });
  for (const type of WEBHOOK_EVENT_TYPES) {
    const entry = EVENT_CATALOGUE[type];
    const { $schema: _ignored, ...schema } = z.toJSONSchema(webhookBodySchema(type)) as Record<
      string,
      unknown
    >;
    const name = `${entry.name}Event`;
    schemas[name] = schema;
    webhooks[type] = {
      post: {
        operationId: `Webhook_${entry.name}`,
        summary: type,
        description: `${entry.description}\n\nSigned per Standard Webhooks: verify \`webhook-signature\` over \`<webhook-id>.<webhook-timestamp>.<body>\` with your subscription secret (e.g. \`new Webhook(secret).verify(body, headers)\` of the \`standardwebhooks\` library). Delivered at least once: deduplicate by \`webhook-id\`.`,
        tags: ["Webhook events"],
        parameters: [
          {
            name: "webhook-id",
            ...header("The event id; the same on every retry.", "evt_01jd5x6c3v8w9y0z1a2b3c4d5e"),
          },
          {
            name: "webhook-timestamp",
            ...header("Unix seconds when this attempt was signed.", "1788091200"),
          },
          {
            name: "webhook-signature",
            ...header(
              "Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).",
              "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
            ),
          },
        ],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
        },
        responses: {
          "2XX": {
            description:
              "Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff.",
          },
          "410": { description: "Gone: the subscription is disabled and receives nothing more." },
        },
      },
    };
  }
  return { schemas, webhooks };
}
