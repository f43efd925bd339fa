import type { CoreConfig } from "../shared/context";
import { DomainError } from "../shared/errors";
import { assertPublicHttpsUrl, UrlPolicyViolation } from "../shared/network-policy";

type UrlPolicyConfig = Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">;

/** The URL policy options for webhook endpoints; the delivery worker applies the same at request time. */
export function webhookUrlPolicy(config: UrlPolicyConfig) {
  return { allowLoopbackHttp: config.developmentMode, allowedHosts: config.webhookAllowedHosts };
}

/** Refuses a webhook URL that is not public https (400 `WebhookUrlNotAllowed`); returns it normalised. */
export async function assertWebhookUrlAllowed(url: string, config: UrlPolicyConfig): Promise<string> {
  try {
    const checked = await assertPublicHttpsUrl(url, webhookUrlPolicy(config));
    return checked.url.href;
  } catch (error) {
    if (!(error instanceof UrlPolicyViolation)) throw error;
    throw new DomainError("WebhookUrlNotAllowed", `The webhook URL is not allowed: ${error.message}`, [
      { code: error.reason, target: "url", message: error.message },
    ]);
  }
}
