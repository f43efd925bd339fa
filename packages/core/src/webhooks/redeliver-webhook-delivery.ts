import type { UnitOfWork } from "@cred/db";
import { DomainError, notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { toWebhookDeliveryDto } from "./webhook-dto";
import { webhookAttemptRepository, webhookDeliveryRepository, webhookRepository } from "./webhook-repository";

/**
 * Schedules one more attempt of a delivery now, whatever its status (a manual retry after a failure,
 * or a resend after success). The worker makes it with the same event id; when it fails and the retry
 * schedule is used up, the delivery ends `failed` again. The subscription must still be active.
 */
export async function redeliverWebhookDelivery(db: UnitOfWork, scope: TenantScope, deliveryId: string) {
  return db.transaction(async (tx) => {
    const delivery = await webhookDeliveryRepository.findById(tx, scope, deliveryId);
    if (!delivery) throw notFound("The webhook delivery");
    const subscription = await webhookRepository.findById(tx, scope, delivery.subscriptionId);
    if (subscription?.status !== "active") {
      throw new DomainError(
        "InvalidState",
        `The delivery's subscription is ${subscription ? "disabled" : "deleted"}; it cannot be redelivered.`,
        [
          {
            code: "InvalidState",
            target: "deliveryId",
            message: "Only deliveries of active subscriptions can be redelivered.",
          },
        ],
      );
    }
    const updated = await webhookDeliveryRepository.scheduleNow(tx, scope, deliveryId, new Date());
    return toWebhookDeliveryDto(updated, await webhookAttemptRepository.forDeliveries(tx, [updated.id]));
  });
}
