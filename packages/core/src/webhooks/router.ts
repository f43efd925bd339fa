import {
  ZCreateWebhookRequest,
  ZCreateWebhookResponse,
  ZDeleteWebhookRequest,
  ZDeleteWebhookResponse,
  ZGetWebhookRequest,
  ZGetWebhookResponse,
  ZListWebhookDeliveriesRequest,
  ZListWebhookDeliveriesResponse,
  ZListWebhooksRequest,
  ZListWebhooksResponse,
  ZRedeliverWebhookDeliveryRequest,
  ZRedeliverWebhookDeliveryResponse,
  ZRotateWebhookSecretRequest,
  ZRotateWebhookSecretResponse,
  ZUpdateWebhookRequest,
  ZUpdateWebhookResponse,
} from "@cred/contracts/webhooks";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { createWebhook } from "./create-webhook";
import { deleteWebhook } from "./delete-webhook";
import { getWebhook } from "./get-webhook";
import { listWebhookDeliveries } from "./list-webhook-deliveries";
import { listWebhooks } from "./list-webhooks";
import { redeliverWebhookDelivery } from "./redeliver-webhook-delivery";
import { rotateWebhookSecret } from "./rotate-webhook-secret";
import { assertNoReadOnlyWebhookFields, updateWebhook } from "./update-webhook";

const TAGS = ["Webhooks"];
const BASE = "/management/webhooks";

export const webhooksRouter = router({
  // Not idempotent on purpose: a replay would have to store the one-time secret in the idempotency record.
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        operationId: "Webhooks_Create",
        summary: "Create a webhook subscription",
        description:
          "The URL must be https (http only to loopback in development mode) and must not be, or resolve to, a private, loopback, link-local, CGNAT, unique-local, multicast or cloud metadata address (400 WebhookUrlNotAllowed). The response carries the signing secret (`whsec_…`, Standard Webhooks) once; it is never shown again.",
        tags: TAGS,
        successDescription: "The subscription was created; store the secret now.",
      },
      scopes: ["webhooks.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZCreateWebhookRequest)
    .output(ZCreateWebhookResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createWebhook(ctx.db, scopeOf(ctx), ctx.deps, input),
    })),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{subscriptionId}`,
        operationId: "Webhooks_Get",
        summary: "Get a webhook subscription (without its secret)",
        tags: TAGS,
      },
      scopes: ["webhooks.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetWebhookRequest)
    .output(ZGetWebhookResponse)
    .query(async ({ ctx, input }) => ({
      data: await getWebhook(ctx.db, scopeOf(ctx), input.subscriptionId),
    })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BASE,
        operationId: "Webhooks_List",
        summary: "List webhook subscriptions (without secrets)",
        tags: TAGS,
      },
      scopes: ["webhooks.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListWebhooksRequest)
    .output(ZListWebhooksResponse)
    .query(({ ctx, input }) => listWebhooks(ctx.db, scopeOf(ctx), input)),

  update: protectedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: `${BASE}/{subscriptionId}`,
        operationId: "Webhooks_Update",
        summary: "Update a webhook subscription (JSON merge patch)",
        description:
          "JSON merge patch (RFC 7396) of what Webhooks_Create accepts (url, events, description) plus `status`: members left out are unchanged, `description: null` clears it, `events` is replaced as a whole. A new URL is checked exactly as on create (400 WebhookUrlNotAllowed). `status: disabled` stops deliveries; `status: active` resumes a disabled subscription and clears `disabledReason`. The signing secret is not changed here (Webhooks_RotateSecret); naming it or another read-only member gives 400 ReadOnlyField. A deleted subscription is 404.",
        tags: TAGS,
      },
      scopes: ["webhooks.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .use(async ({ getRawInput, next }) => {
      assertNoReadOnlyWebhookFields(await getRawInput());
      return next();
    })
    .input(ZUpdateWebhookRequest)
    .output(ZUpdateWebhookResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await updateWebhook(ctx.db, scopeOf(ctx), ctx.deps, input),
    })),

  delete: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${BASE}/{subscriptionId}`,
        operationId: "Webhooks_Delete",
        summary: "Delete a webhook subscription",
        description:
          "Answers 200 with the subscription as it was when deleted. The subscription stops receiving events at once and reads as 404 afterwards (deleting it again → 404); its deliveries stay listed in WebhookDeliveries_List until the delivery retention period deletes them.",
        tags: TAGS,
        successDescription: "The subscription was deleted; the body shows it as it was.",
      },
      scopes: ["webhooks.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZDeleteWebhookRequest)
    .output(ZDeleteWebhookResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await deleteWebhook(ctx.db, scopeOf(ctx), input.subscriptionId),
    })),

  rotateSecret: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{subscriptionId}/rotate-secret`,
        operationId: "Webhooks_RotateSecret",
        summary: "Rotate a webhook subscription's signing secret",
        description:
          "Returns the new secret once. During `overlapSeconds` (default one day) every delivery also carries a `v1,` signature with the replaced secret, so the receiver can switch over without losing events; secrets replaced by earlier rotations keep signing until their own overlaps end (at most 5). 0 ends every replaced secret at once.",
        tags: TAGS,
        successDescription: "The secret was rotated; store the new one now.",
      },
      scopes: ["webhooks.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZRotateWebhookSecretRequest)
    .output(ZRotateWebhookSecretResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await rotateWebhookSecret(ctx.db, scopeOf(ctx), ctx.deps, input),
    })),
});

export const webhookDeliveriesRouter = router({
  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/webhook-deliveries",
        operationId: "WebhookDeliveries_List",
        summary: "List webhook deliveries",
        description:
          "Every event delivery with its attempts, oldest first; filter by subscription, status and event type. Deliveries of deleted subscriptions stay listed. A finished delivery (succeeded or failed) is deleted, with its attempts, once its last change is older than the retention period (30 days by default); a pending one is never deleted.",
        tags: TAGS,
      },
      scopes: ["webhooks.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListWebhookDeliveriesRequest)
    .output(ZListWebhookDeliveriesResponse)
    .query(({ ctx, input }) => listWebhookDeliveries(ctx.db, scopeOf(ctx), input)),

  redeliver: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/webhook-deliveries/{deliveryId}/redeliver",
        operationId: "WebhookDeliveries_Redeliver",
        summary: "Redeliver a webhook delivery now",
        description:
          "Schedules one more attempt at once, whatever the delivery's status (a retry after failure or a resend after success), with the same `webhook-id`, and restarts its retention period. 409 InvalidState when the subscription is disabled or deleted; 404 once the delivery is past the retention period and deleted.",
        tags: TAGS,
        successDescription: "The attempt is scheduled; the body shows the delivery.",
      },
      scopes: ["webhooks.manage"],
      successStatus: 202,
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZRedeliverWebhookDeliveryRequest)
    .output(ZRedeliverWebhookDeliveryResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await redeliverWebhookDelivery(ctx.db, scopeOf(ctx), input.deliveryId),
    })),
});
