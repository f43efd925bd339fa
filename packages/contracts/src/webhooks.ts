import { z } from "zod";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from "./webhook-events";

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";
const SUBSCRIPTION_ID_EXAMPLE = "wh_01jd5x6c3v8w9y0z1a2b3c4d5e";

const zEventType = z.enum(WEBHOOK_EVENT_TYPES).meta({
  description: "An event type of the catalogue.",
  example: "verification.session.verified",
});

const zSubscribedEvent = z.enum([...WEBHOOK_EVENT_TYPES, ALL_EVENTS]).meta({
  description: "An event type of the catalogue, or `*` for every event.",
  example: "verification.session.verified",
});

const zSubscriptionId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The webhook subscription's id.", example: SUBSCRIPTION_ID_EXAMPLE });

export const zWebhookSubscription = z
  .object({
    id: zSubscriptionId,
    url: z.string().meta({
      description: "Endpoint that receives the events (https).",
      example: "https://example.com/webhooks/credentials",
    }),
    events: z.array(zSubscribedEvent).meta({
      description: 'Event types delivered to the endpoint; `["*"]` for all.',
      example: ["verification.session.verified"],
    }),
    description: z
      .string()
      .nullable()
      .meta({ description: "Free text for the integrator.", example: "Checkout backend" }),
    status: z.enum(["active", "disabled"]).meta({
      description:
        "`active` subscriptions receive events; `disabled` ones (e.g. after repeated failures) do not.",
      example: "active",
    }),
    disabledReason: z.string().nullable().meta({
      description:
        "Why the subscription was disabled (e.g. the endpoint answered 410 Gone); null while active.",
      example: null,
    }),
    createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
    updatedAt: z.string().meta({ description: "Last change (ISO 8601).", example: ISO_EXAMPLE }),
  })
  .meta({
    id: "WebhookSubscription",
    description: "Where and which events are delivered (Standard Webhooks).",
  });
export type TWebhookSubscription = z.infer<typeof zWebhookSubscription>;

export const ZCreateWebhookRequest = z.strictObject({
  url: z.url({ error: "Give an absolute URL." }).max(2048).meta({
    description:
      "https endpoint that receives the events. Hosts that are or resolve to private, loopback, link-local or metadata addresses are refused.",
    example: "https://example.com/webhooks/credentials",
  }),
  events: z
    .array(zSubscribedEvent)
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .superRefine((events, ctx) => {
      if (events.includes(ALL_EVENTS) && events.length > 1) {
        ctx.addIssue({ code: "custom", message: "Use `*` alone to receive every event." });
      }
      if (new Set(events).size !== events.length) {
        ctx.addIssue({ code: "custom", message: "List each event type once." });
      }
    })
    .meta({
      description: 'Event types to deliver, or `["*"]` for every event.',
      example: ["verification.session.verified", "verification.session.rejected"],
    }),
  description: z
    .string()
    .trim()
    .max(500)
    .nullish()
    .meta({ description: "Free text for the integrator.", example: "Checkout backend" }),
});
// The host must resolve to a public address when the subscription is made: example.com does.
registerRequestExample(ZCreateWebhookRequest, [], {
  url: "https://example.com/webhooks/credentials",
  events: [
    "issuance.transaction.completed",
    "verification.session.verified",
    "verification.session.rejected",
  ],
  description: "Checkout backend",
});
export type TCreateWebhookRequest = z.infer<typeof ZCreateWebhookRequest>;

export const ZCreateWebhookResponse = resourceOf(
  zWebhookSubscription
    .extend({
      secret: z.string().meta({
        description:
          "Signing secret (Standard Webhooks `whsec_` form) to verify `webhook-signature`. Shown only in this response; store it now.",
        example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      }),
    })
    .meta({
      id: "WebhookSubscriptionWithSecret",
      description: "A new subscription with its signing secret.",
    }),
).meta({ id: "ManagementResourceOfWebhookSubscriptionWithSecret" });

export const ZWebhookIdParams = z.object({ subscriptionId: zSubscriptionId });
export const ZGetWebhookRequest = ZWebhookIdParams;
export const ZDeleteWebhookRequest = ZWebhookIdParams;
export const ZWebhookResponse = resourceOf(zWebhookSubscription).meta({
  id: "ManagementResourceOfWebhookSubscription",
});
export const ZGetWebhookResponse = ZWebhookResponse;
export const ZDeleteWebhookResponse = ZWebhookResponse;
export const ZListWebhooksRequest = zListQuery;
export const ZListWebhooksResponse = collectionOf(zWebhookSubscription).meta({
  id: "ManagementCollectionOfWebhookSubscription",
});

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

export const zWebhookDelivery = z
  .object({
    id: z.string().meta({ description: "Delivery id.", example: "whd_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    subscriptionId: zSubscriptionId,
    eventId: z.string().meta({
      description: "Id of the event (the `webhook-id` header).",
      example: "evt_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
    eventType: zEventType,
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        "`pending` while attempts remain, `succeeded` after a 2xx answer, `failed` once retries are exhausted.",
      example: "succeeded",
    }),
    attempts: z.number().int().meta({ description: "Attempts made so far.", example: 1 }),
    lastAttemptAt: z
      .string()
      .nullable()
      .meta({ description: "Time of the latest attempt (ISO 8601).", example: ISO_EXAMPLE }),
    lastResponseStatus: z
      .number()
      .int()
      .nullable()
      .meta({ description: "HTTP status of the latest attempt; null when none was received.", example: 200 }),
    lastError: z.string().nullable().meta({
      description:
        "Why the latest attempt failed (e.g. `Timed out after 15000 ms`, `Connection refused (ECONNREFUSED)`, `The endpoint answered 503.`); null after a success or before any attempt.",
      example: null,
    }),
    attemptLog: z
      .array(
        z
          .object({
            attempt: z.number().int().meta({ description: "1 for the first attempt.", example: 1 }),
            startedAt: z.string().meta({ description: "When it started (ISO 8601).", example: ISO_EXAMPLE }),
            durationMs: z.number().int().meta({ description: "How long it took.", example: 42 }),
            responseStatus: z
              .number()
              .int()
              .nullable()
              .meta({ description: "The status answered; null when none was.", example: 200 }),
            error: z
              .string()
              .nullable()
              .meta({ description: "Why it failed, without secrets or response bodies.", example: null }),
          })
          .meta({ id: "WebhookAttempt", description: "One attempt of a delivery." }),
      )
      .meta({ description: "Every attempt so far, oldest first." }),
    nextAttemptAt: z.string().nullable().meta({
      description: "When the next attempt is due (ISO 8601); null when none is planned.",
      example: null,
    }),
    createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
  })
  .meta({
    id: "WebhookDelivery",
    description: "One event's delivery to one subscription, across its attempts.",
  });
export type TWebhookDelivery = z.infer<typeof zWebhookDelivery>;

export const ZListWebhookDeliveriesRequest = zListQuery.extend({
  subscriptionId: zSubscriptionId.optional(),
  status: z
    .enum(DELIVERY_STATUSES)
    .optional()
    .meta({ description: "Only deliveries in this status.", example: "failed" }),
  eventType: zEventType.optional().meta({ description: "Only deliveries of this event type." }),
});
export type TListWebhookDeliveriesRequest = z.infer<typeof ZListWebhookDeliveriesRequest>;
export const ZListWebhookDeliveriesResponse = collectionOf(zWebhookDelivery).meta({
  id: "ManagementCollectionOfWebhookDelivery",
});

const zDeliveryId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The webhook delivery's id.", example: "whd_01jd5x6c3v8w9y0z1a2b3c4d5e" });

export const ZRedeliverWebhookDeliveryRequest = z.object({ deliveryId: zDeliveryId });
export const ZRedeliverWebhookDeliveryResponse = resourceOf(zWebhookDelivery).meta({
  id: "ManagementResourceOfWebhookDelivery",
});

// Webhooks_Update (JSON merge patch: absent = unchanged, null = cleared)
/** Fields of the subscription that a PATCH may not set (400 ReadOnlyField); the secret has Webhooks_RotateSecret. */
export const WEBHOOK_READ_ONLY_FIELDS = ["id", "secret", "disabledReason", "createdAt", "updatedAt"] as const;

const createWebhookFields = ZCreateWebhookRequest.shape;

export const ZUpdateWebhookRequest = z.strictObject({
  ...ZWebhookIdParams.shape,
  url: createWebhookFields.url.optional().meta({
    description:
      "New https endpoint, checked as on Webhooks_Create. Deliveries still pending go to it from their next attempt.",
    example: "https://example.com/webhooks/credentials-v2",
  }),
  events: createWebhookFields.events.optional().meta({
    description:
      'Replaces the event types delivered, or `["*"]` for every event. Events already queued for delivery are still delivered.',
    example: ["verification.session.verified"],
  }),
  description: createWebhookFields.description.meta({
    description: "New free text for the integrator; null clears it.",
    example: "Checkout backend (v2)",
  }),
  status: z.enum(["active", "disabled"]).optional().meta({
    description:
      "`disabled` stops deliveries (pending ones are closed without an attempt); `active` resumes a subscription disabled by hand or by the delivery worker (after a 410 Gone or days of failures) and clears `disabledReason`.",
    example: "active",
  }),
});
// The host must resolve to a public address when the URL changes: example.com does.
registerRequestExample(ZUpdateWebhookRequest, ["subscriptionId"], {
  url: "https://example.com/webhooks/credentials-v2",
  events: ["verification.session.verified"],
  description: "Checkout backend (v2)",
  status: "active",
});
export type TUpdateWebhookRequest = z.infer<typeof ZUpdateWebhookRequest>;
export const ZUpdateWebhookResponse = ZWebhookResponse;

export const ZRotateWebhookSecretRequest = z.strictObject({
  ...ZWebhookIdParams.shape,
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(24 * 3600)
    .meta({
      description:
        "How long deliveries stay signed with the replaced secret too (one more `v1,` signature), so receivers can switch over. 0 ends it, and any secret of an earlier rotation still overlapping, at once. Default one day, at most seven.",
      example: 86400,
    }),
});
registerRequestExample(ZRotateWebhookSecretRequest, ["subscriptionId"], { overlapSeconds: 86400 });
export type TRotateWebhookSecretRequest = z.infer<typeof ZRotateWebhookSecretRequest>;
export const ZRotateWebhookSecretResponse = ZCreateWebhookResponse;
