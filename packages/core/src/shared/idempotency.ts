import { createHash } from "node:crypto";
import type { UnitOfWork } from "@cred/db";
import { canonicalJson } from "./canonical-json";
import type { RequestContext } from "./context";
import { DomainError } from "./errors";
import { idempotencyRepository, type StoredIdempotentResponse } from "./idempotency-repository";
import type { Principal } from "./principal";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

type Ctx = RequestContext & { principal: Principal };

/** What a stored response is sealed to: its record's tenant, environment, operation and key. */
export function idempotencySealContext(
  tenantId: string,
  environment: string,
  operation: string,
  key: string,
) {
  return `idempotency:${JSON.stringify([tenantId, environment, operation, key])}`;
}

/**
 * The stored response, opened. Responses are sealed (AES-256-GCM, bound to the record's tenant,
 * environment, operation and key): they can hold what must not rest in plain text, such as a
 * transaction code or an offer link carrying its pre-authorized code. Rows written before sealing
 * hold the plain body.
 */
function openResponse(ctx: Ctx, sealContext: string, stored: StoredIdempotentResponse): unknown {
  const sealed = (stored as { sealed?: unknown } | null)?.sealed;
  if (typeof sealed !== "string") return stored;
  return JSON.parse(ctx.deps.secretBox.open(sealed, sealContext));
}

/** An in-flight record older than this is taken to be from a process that died mid-request. */
const ABANDONED_AFTER_MS = 60_000;

/**
 * Runs an operation at most once per `Idempotency-Key` (tenant + environment + operation + key).
 * The key is claimed first, in a short transaction of its own, so a concurrent duplicate finds it in
 * flight and gets 409 `IdempotencyKeyInUse` at once; the operation's writes and the record of its
 * response then commit together, so an effect never exists without its record. A failed operation
 * releases the key (a corrected retry runs); a claim left by a process that died is taken over after
 * a minute.
 */
export async function withIdempotency<T>(
  ctx: Ctx,
  operation: string,
  payload: unknown,
  run: (db: UnitOfWork) => Promise<T>,
): Promise<T> {
  const key = ctx.idempotencyKey;
  if (key === undefined) return run(ctx.db);
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError(
      "InvalidIdempotencyKey",
      "The Idempotency-Key header must be 1–255 visible ASCII characters.",
    );
  }
  const { tenantId, environment } = ctx.principal;
  // The caller's issuer binding is part of the request: an issuer-bound key must not be handed another
  // caller's result for another issuer (with its tx_code) by reusing that caller's key and body.
  const binding = ctx.principal.kind === "apiKey" ? ctx.principal.issuerId : null;
  const fingerprint = createHash("sha256")
    .update(canonicalJson({ payload, issuerBinding: binding }))
    .digest("base64url");
  const retentionMs = ctx.deps.config.idempotencyRetentionHours * 3600_000;
  const sealContext = idempotencySealContext(tenantId, environment, operation, key);
  const scope = { tenantId, environment };
  const ref = { operation, key };
  const root = ctx.deps.database.root;

  const claim = await root.transaction(async (tx) => {
    const now = Date.now();
    // In flight since expiresAt - retention: the claim sets both.
    const claimed = { fingerprint, state: "in_flight", expiresAt: new Date(now + retentionMs) };
    if (await idempotencyRepository.claim(tx, scope, ref, fingerprint, claimed.expiresAt)) {
      return { replay: false as const };
    }
    const existing = await idempotencyRepository.find(tx, scope, ref);
    const live = existing && existing.expiresAt.getTime() > now;
    if (existing && live) {
      if (existing.fingerprint !== fingerprint) {
        throw new DomainError(
          "IdempotencyKeyReused",
          "This Idempotency-Key was used with a different request payload.",
        );
      }
      if (existing.state === "done") {
        return {
          replay: true as const,
          status: existing.responseStatus ?? 200,
          body: openResponse(ctx, sealContext, existing.responseBody) as T,
        };
      }
      const inFlightSince = existing.expiresAt.getTime() - retentionMs;
      if (now - inFlightSince < ABANDONED_AFTER_MS) {
        throw new DomainError(
          "IdempotencyKeyInUse",
          "A request with this Idempotency-Key is still in progress; retry when it has finished.",
        );
      }
    }
    // Expired, or abandoned in flight: take it over, unless another request just did (the condition on
    // the record as read makes two takeovers at once end in one claim and one 409).
    const expected = existing?.expiresAt ?? claimed.expiresAt;
    if (!(await idempotencyRepository.takeOver(tx, scope, ref, expected, claimed))) {
      throw new DomainError(
        "IdempotencyKeyInUse",
        "A request with this Idempotency-Key is still in progress; retry when it has finished.",
      );
    }
    return { replay: false as const };
  });

  if (claim.replay) {
    ctx.response.status = claim.status;
    ctx.response.headers["Idempotent-Replayed"] = "true";
    return claim.body;
  }
  try {
    return await root.transaction(async (tx) => {
      const body = await run(tx);
      await idempotencyRepository.complete(tx, scope, ref, {
        status: ctx.response.status ?? 200,
        body: { sealed: ctx.deps.secretBox.seal(JSON.stringify(body), sealContext) },
      });
      return body;
    });
  } catch (error) {
    // Nothing of the operation committed: release the key so a corrected retry runs.
    await idempotencyRepository.release(root, scope, ref).catch(() => {});
    throw error;
  }
}
