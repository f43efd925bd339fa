import type { UnitOfWork } from "@cred/db";
import { auditRepository } from "./audit-repository";
import { cacheSpec } from "./caches";
import type { AppDeps } from "./context";
import { newId } from "./ids";
import type { Principal } from "./principal";

/**
 * Input fields whose values the audit summary keeps: names, states, URLs, scopes and identifiers.
 * Everything else (claims, secrets, keys, certificates, free text) is recorded by name only.
 */
const KEPT_VALUES = new Set([
  "name",
  "displayName",
  "status",
  "url",
  "events",
  "scopes",
  "environment",
  "role",
  "email",
  "identifier",
  "policy",
  "credentialConfiguration",
  "issuerId",
  "organisationId",
  "organisationReference",
  "reference",
  "policyIdentifier",
  "transactionId",
  "credentialId",
  "subscriptionId",
  "deliveryId",
  "certificateId",
  "expiresAt",
  "requireDpop",
  "requireDpopNonce",
  "enabled",
  "reason",
]);

/** Input fields that name the resource a call acts on, most specific first, with its type. */
const TARGET_FIELDS: [field: string, type: string][] = [
  ["credentialId", "credential"],
  ["transactionId", "issuanceTransaction"],
  ["deliveryId", "webhookDelivery"],
  ["subscriptionId", "webhookSubscription"],
  ["certificateId", "verifierCertificate"],
  ["policyIdentifier", "verificationPolicy"],
  ["verificationId", "verificationSession"],
  ["organisationReference", "organisation"],
  ["configurationIdentifier", "credentialConfiguration"],
  ["issuerId", "issuer"],
  ["apiKeyId", "apiKey"],
  ["userId", "staffMember"],
  ["tenantId", "tenant"],
  ["id", ""],
];

const isKeptValue = (value: unknown) =>
  typeof value === "string"
    ? value.length <= 300
    : typeof value === "number" ||
      typeof value === "boolean" ||
      (Array.isArray(value) &&
        value.length <= 50 &&
        value.every((v) => typeof v === "string" && v.length <= 100));

export function auditSummary(input: unknown): { fields: string[]; values: Record<string, unknown> } {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return { fields: [], values: {} };
  const entries = Object.entries(input as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return {
    fields: entries.map(([k]) => k).sort(),
    values: Object.fromEntries(entries.filter(([k, v]) => KEPT_VALUES.has(k) && isKeptValue(v))),
  };
}

/** Resources whose target type is not the singular of their operation prefix (as TARGET_FIELDS names them). */
const TARGET_TYPE_OF_RESOURCE: Record<string, string> = { Webhooks: "webhookSubscription" };

/** Operations whose created resource is not of their prefix's type (a relying party's registration certificate). */
const CREATED_TYPE_OF_OPERATION: Record<string, string> = {
  RelyingParties_AddRegistrationCertificate: "verifierRegistrationCertificate",
};

/** `Issuers_Create` → `issuer`; `IssuanceTransactions_Cancel` → `issuanceTransaction`. */
function resourceOfOperation(operation: string): string | null {
  const resource = operation.split("_")[0];
  if (!resource || operation.startsWith("console:")) return null;
  const named = TARGET_TYPE_OF_RESOURCE[resource];
  if (named) return named;
  const singular = resource.endsWith("ies") ? `${resource.slice(0, -3)}y` : resource.replace(/s$/, "");
  return singular.charAt(0).toLowerCase() + singular.slice(1);
}

export function auditTarget(
  operation: string,
  input: unknown,
  output: unknown,
): { type: string | null; id: string | null } {
  const fields = input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const data = (output as { data?: { id?: unknown; reference?: unknown; identifier?: unknown } } | undefined)
    ?.data;
  const created = data?.id ?? data?.reference ?? data?.identifier;
  if (typeof created === "string")
    return { type: CREATED_TYPE_OF_OPERATION[operation] ?? resourceOfOperation(operation), id: created };
  for (const [field, type] of TARGET_FIELDS) {
    const value = fields[field];
    if (typeof value === "string") return { type: type || resourceOfOperation(operation), id: value };
  }
  return { type: resourceOfOperation(operation), id: null };
}

export interface AuditActor {
  type: "apiKey" | "staff" | "cli";
  id: string | null;
  name: string | null;
}

export const actorOf = (principal: Principal): AuditActor => ({
  type: principal.kind,
  id: principal.id,
  name: principal.kind === "apiKey" ? principal.name : principal.email,
});

export interface AuditedCall {
  tenantId: string;
  environment: string;
  actor: AuditActor;
  /** The resource acted on, when the caller knows it; otherwise derived from the input and output. */
  target?: { type: string | null; id: string | null };
  operation: string;
  input: unknown;
  output: unknown;
  status: number;
  requestId: string;
  clientRequestId?: string;
  sourceAddress?: string;
}

export const auditOutcome = (status: number) =>
  status < 400 ? "succeeded" : status === 401 || status === 403 ? "refused" : "failed";

/** Appends the call's audit event (unsealed; `sealAuditChain` chains it). */
export async function recordAuditEvent(db: UnitOfWork, call: AuditedCall): Promise<void> {
  const target = call.target ?? auditTarget(call.operation, call.input, call.output);
  await auditRepository.append(db, {
    id: newId("aud"),
    tenantId: call.tenantId,
    environment: call.environment,
    occurredAt: new Date(),
    actorType: call.actor.type,
    actorId: call.actor.id,
    actorName: call.actor.name,
    operation: call.operation,
    targetType: target.type,
    targetId: target.id,
    outcome: auditOutcome(call.status),
    status: call.status,
    requestId: call.requestId,
    clientRequestId: call.clientRequestId ?? null,
    sourceAddress: call.sourceAddress ?? null,
    summary: auditSummary(call.input),
  });
}

/** How long a tenant's new events wait to be sealed together; calls meanwhile join the same seal. */
const SEAL_DELAY_MS = 1000;

/** Per tenant while a seal is scheduled or runs: whether calls arrived since its last round began. */
const sealing = cacheSpec<{ again: boolean }>("audit.sealing", { max: 100_000 });

/**
 * Seals the tenant's new events shortly after the call: one seal per tenant at a time, started
 * SEAL_DELAY_MS after the first unsealed call, so a busy tenant's events are chained in batches (one
 * transaction of a few statements per batch, not per call). Calls while a seal runs make it go round
 * once more, again SEAL_DELAY_MS later: at most one round per tenant and second, however busy. The
 * webhook worker's sweep seals whatever a stopped process left unsealed.
 */
export function sealAuditChainSoon(
  deps: Pick<AppDeps, "database" | "caches">,
  tenantId: string,
  onError: (error: unknown) => void = () => {},
): void {
  const running = deps.caches.of(sealing);
  const current = running.peek(tenantId);
  if (current) {
    current.again = true;
    return;
  }
  const state = { again: false };
  running.set(tenantId, state);
  const round = async () => {
    try {
      state.again = false;
      await auditRepository.sealAll(deps.database.root, tenantId);
    } catch (error) {
      onError(error);
    }
    if (state.again) setTimeout(() => void round(), SEAL_DELAY_MS).unref();
    else running.delete(tenantId);
  };
  setTimeout(() => void round(), SEAL_DELAY_MS).unref();
}

/**
 * An operator CLI command's audit event (actor `cli`, the operating-system user). Tenant-wide commands
 * have no environment; they are listed with the tenant's production events.
 */
export async function recordOperatorAction(
  db: UnitOfWork,
  action: {
    tenantId: string;
    environment?: string;
    command: string;
    operatingSystemUser: string;
    target: { type: string; id: string };
    input: Record<string, unknown>;
  },
): Promise<void> {
  await recordAuditEvent(db, {
    tenantId: action.tenantId,
    environment: action.environment ?? "production",
    actor: { type: "cli", id: null, name: action.operatingSystemUser },
    operation: `cli:${action.command}`,
    target: action.target,
    input: action.input,
    output: undefined,
    status: 200,
    requestId: newId("req"),
  });
  await auditRepository.sealAll(db, action.tenantId);
}
