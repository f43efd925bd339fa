/**
 * What core tells the server's metrics (apps/api/src/metrics): outcomes of the flows it runs, each
 * reported once its change is committed. Labels are bounded sets named here, never ids; the server
 * decides how they are exposed. `noDomainMetrics` is for callers without metrics (the CLI, unit tests).
 */
export type CredentialStatusAction = "revoked" | "suspended" | "reinstated";

/** How a verification session was decided. */
export type VerificationOutcome = "verified" | "rejected";

/**
 * A webhook attempt's result class: `success` (2xx), the HTTP class of a refusal, `gone` (410, the
 * subscription disabled), `network` (connection, TLS or DNS failure), `timeout`, or `refused` (the URL
 * policy refused the address before connecting).
 */
export type WebhookAttemptClass =
  | "success"
  | "http_3xx"
  | "http_4xx"
  | "http_5xx"
  | "http_other"
  | "gone"
  | "network"
  | "timeout"
  | "refused";

export interface DomainMetrics {
  /** An issuance transaction completed (its last credential issued). */
  issuanceCompleted(): void;
  /** A verification session was decided. */
  verificationCompleted(outcome: VerificationOutcome): void;
  /** One credential (one copy of a batch) changed status. */
  credentialStatusChanged(action: CredentialStatusAction): void;
  /** A webhook attempt finished (recorded or not) after `seconds`. */
  webhookAttempt(seconds: number, result: WebhookAttemptClass): void;
  /** A trust source refresh ended: the list verified, or it failed (with the refusal's code). */
  trustSourceRefreshed(outcome: "succeeded" | "failed", code?: string): void;
}

export const noDomainMetrics: DomainMetrics = {
  issuanceCompleted() {},
  verificationCompleted() {},
  credentialStatusChanged() {},
  webhookAttempt() {},
  trustSourceRefreshed() {},
};

/** The result class of a webhook attempt from its HTTP status or failure. */
export function webhookAttemptClass(
  attempt: { status: number } | { error: "timeout" | "network" | "refused" },
): WebhookAttemptClass {
  if ("error" in attempt) return attempt.error;
  const { status } = attempt;
  if (status >= 200 && status < 300) return "success";
  if (status === 410) return "gone";
  if (status >= 300 && status < 400) return "http_3xx";
  if (status >= 400 && status < 500) return "http_4xx";
  if (status >= 500 && status < 600) return "http_5xx";
  return "http_other";
}
