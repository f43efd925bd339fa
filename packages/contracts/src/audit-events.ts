import { z } from "zod";
import { zListQuery } from "./pagination";

export const AUDIT_OUTCOMES = ["succeeded", "refused", "failed"] as const;
export const AUDIT_ACTOR_TYPES = ["apiKey", "staff", "cli"] as const;
export const AUDIT_INTEGRITY = ["intact", "broken", "pending"] as const;

const zIsoTime = z.iso.datetime({ offset: true });

export const zAuditEvent = z
  .object({
    id: z.string().meta({ description: "Audit event id.", example: "aud_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    sequence: z.int().nullable().meta({
      description:
        "Position in the tenant's hash chain (both environments share it); null until the event is sealed into the chain, within a second or so of the call.",
    }),
    occurredAt: z.string().meta({ description: "When the call was answered." }),
    actor: z
      .object({
        type: z
          .enum(AUDIT_ACTOR_TYPES)
          .meta({ description: "API key, console staff user, or the operator CLI." }),
        id: z
          .string()
          .nullable()
          .meta({ description: "The API key's or staff user's id; null for the CLI." }),
        name: z.string().nullable().meta({
          description: "The API key's name, the staff user's email, or the operating-system user of the CLI.",
        }),
      })
      .meta({ description: "Who made the call." }),
    operation: z.string().meta({
      description: "The operation id (`Issuers_Create`), or `cli:<command>` for the operator CLI.",
      example: "Issuers_Create",
    }),
    target: z
      .object({
        type: z.string().nullable().meta({ description: "The kind of resource the call named or created." }),
        id: z
          .string()
          .nullable()
          .meta({ description: "Its id or reference; null when the call named none." }),
      })
      .meta({ description: "The resource the call acted on." }),
    outcome: z.enum(AUDIT_OUTCOMES).meta({
      description:
        "`succeeded` (2xx), `refused` (authorization: 401, 403, or a console CSRF failure) or `failed` (any other error).",
    }),
    status: z.int().meta({ description: "The HTTP status the caller got.", example: 201 }),
    requestId: z.string().meta({ description: "The response's request id (`x-ms-request-id`)." }),
    clientRequestId: z
      .string()
      .nullable()
      .meta({ description: "The caller's `x-ms-client-request-id`, when it sent one." }),
    sourceAddress: z.string().nullable().meta({ description: "The caller's address as the server saw it." }),
    summary: z
      .object({
        fields: z.array(z.string()).meta({ description: "The input fields the call carried (names only)." }),
        values: z.record(z.string(), z.unknown()).meta({
          description:
            "Non-secret settings among them (names, statuses, URLs, scopes, identifiers). Never secrets, keys, certificates' private parts or claim values.",
        }),
      })
      .meta({ description: "What the call changed, without secrets or claim values." }),
    integrity: z
      .object({
        state: z.enum(AUDIT_INTEGRITY).meta({
          description:
            "`intact`: the event's hash matches its content and links to the event before it; `broken`: the event or the one before it was altered or removed; `pending`: not yet sealed.",
        }),
        hash: z
          .string()
          .nullable()
          .meta({ description: "SHA-256 (hex) over the event and the previous hash." }),
        previousHash: z
          .string()
          .nullable()
          .meta({ description: "The hash of the event before it in the chain." }),
      })
      .meta({ description: "Tamper evidence: the event's place in the tenant's hash chain." }),
  })
  .meta({ id: "AuditEvent" });

export type TAuditEvent = z.infer<typeof zAuditEvent>;

/** The filters AuditEvents_List and AuditEvents_Export share (one definition for both). */
const zAuditEventFilters = {
  actorId: z.string().max(64).optional().meta({ description: "Only calls by this API key or staff user." }),
  operation: z.string().max(100).optional().meta({
    description: "Only this operation id.",
    example: "Credentials_Revoke",
  }),
  targetId: z.string().max(200).optional().meta({ description: "Only calls on this resource." }),
  outcome: z.enum(AUDIT_OUTCOMES).optional().meta({ description: "Only calls with this outcome." }),
  from: zIsoTime.optional().meta({ description: "Only events at or after this time (ISO 8601)." }),
  to: zIsoTime.optional().meta({ description: "Only events before this time (ISO 8601)." }),
};

export const ZListAuditEventsRequest = zListQuery.extend(zAuditEventFilters);
export type TListAuditEventsRequest = z.infer<typeof ZListAuditEventsRequest>;

export const ZAuditEventCollection = z
  .object({
    data: z.array(zAuditEvent).meta({ description: "This page's events, newest first." }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: "Cursor of the next (older) page; null on the last page." }),
  })
  .meta({ id: "ManagementCollectionOfAuditEvent" });

/** AuditEvents_Export: the List's filters, without paging (the export runs to the end). */
export const ZExportAuditEventsRequest = z.object(zAuditEventFilters);
export type TExportAuditEventsRequest = z.infer<typeof ZExportAuditEventsRequest>;

/**
 * AuditEvents_Export's answer as the server produces it: batches of events, oldest first, that the REST
 * adapter writes as `application/x-ndjson`, one event per line. Documented as the event, the schema of
 * each line.
 */
export const ZAuditEventExport = z
  .custom<AsyncIterable<TAuditEvent[]>>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === "function",
    { message: "Expected the export's batches." },
  )
  .meta({ override: { $ref: "#/components/schemas/AuditEvent" } });
