import type { Invocation } from "@cred/contracts/invocation";
import {
  type TCreateVerificationRequest,
  ZCreateVerificationRequest,
} from "@cred/contracts/verification-sessions";

/** How the playground hands the request to a wallet. */
export type PlaygroundDelivery = "link" | "link-by-value" | "dc-api-signed" | "dc-api-unsigned";

export interface PlaygroundForm {
  policy: string;
  invocation: Invocation;
  /** JSON array text, or blank. */
  transactionData: string;
  delivery: PlaygroundDelivery;
  /** Page origins for the Digital Credentials API, one per line or comma-separated. */
  origins: string;
}

/**
 * The Verifications_Create request of the playground form, checked with the API's own schema, so the
 * form refuses exactly what the API would (the policy's own rules, such as a policy that allows only
 * signed DC API requests, it checks itself): `{ request }` or `{ issue }` saying what is wrong.
 */
export function playgroundRequest(
  form: PlaygroundForm,
): { request: TCreateVerificationRequest; issue?: undefined } | { issue: string; request?: undefined } {
  let items: unknown;
  try {
    items = form.transactionData.trim() ? JSON.parse(form.transactionData) : undefined;
  } catch (error) {
    return { issue: `Transaction data is not JSON: ${(error as Error).message}` };
  }
  const dcApi = form.delivery === "dc-api-signed" || form.delivery === "dc-api-unsigned";
  const origins = form.origins
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);
  const parsed = ZCreateVerificationRequest.safeParse({
    policy: form.policy,
    invocation: form.invocation,
    transactionData: items,
    ...(dcApi ? { dcApi: { origins, signed: form.delivery === "dc-api-signed" } } : {}),
    ...(form.delivery === "link-by-value" ? { requestByValue: true } : {}),
  });
  if (!parsed.success) {
    return {
      issue: parsed.error.issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; "),
    };
  }
  return { request: parsed.data };
}
