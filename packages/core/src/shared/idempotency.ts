import { createHash } from "node:crypto";
import { type Db, inTransaction, type Prisma } from "@cred/db";
import type { RequestContext } from "../context";
import { canonicalJson } from "./canonical-json";
import { DomainError } from "./errors";
import { newId } from "./ids";
import type { Principal } from "./principal";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

type Ctx = RequestContext & { principal: Principal };

/**
 * Runs an operation at most once per `Idempotency-Key` (tenant + environment + operation + key).
 * The record is written in the same transaction as the operation's own writes, so a crash can never
 * leave an effect without its record; a concurrent duplicate waits on the unique index and then replays.
 */
export async function withIdempotency<T>(
  ctx: Ctx,
  operation: string,
  payload: unknown,
  run: (db: Db) => Promise<T>,
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
  const fingerprint = createHash("sha256").update(canonicalJson(payload)).digest("base64url");
  const retentionMs = ctx.deps.config.idempotencyRetentionHours * 3600_000;

  const outcome = await inTransaction(ctx.deps.database.prisma, async (tx) => {
    const inserted = await tx.$executeRaw`
      INSERT INTO "IdempotencyRecord" ("id","tenantId","environment","operation","key","fingerprint","state","expiresAt")
      VALUES (${newId("idem")}, ${tenantId}, ${environment}, ${operation}, ${key}, ${fingerprint}, 'in_flight',
              ${new Date(Date.now() + retentionMs)})
      ON CONFLICT ("tenantId","environment","operation","key") DO NOTHING`;
    const where = { tenantId_environment_operation_key: { tenantId, environment, operation, key } };
    if (inserted === 0) {
      const existing = await tx.idempotencyRecord.findUnique({ where });
      if (existing && existing.expiresAt.getTime() > Date.now()) {
        if (existing.fingerprint !== fingerprint) {
          throw new DomainError(
            "IdempotencyKeyReused",
            "This Idempotency-Key was used with a different request payload.",
          );
        }
        if (existing.state !== "done") {
          throw new DomainError(
            "IdempotencyKeyInUse",
            "A request with this Idempotency-Key is still in progress.",
          );
        }
        return {
          replay: true as const,
          status: existing.responseStatus ?? 200,
          body: existing.responseBody as T,
        };
      }
      // An expired record: take it over.
      await tx.idempotencyRecord.update({
        where,
        data: {
          fingerprint,
          state: "in_flight",
          expiresAt: new Date(Date.now() + retentionMs),
          responseBody: undefined,
        },
      });
    }
    const body = await run(tx);
    await tx.idempotencyRecord.update({
      where,
      data: {
        state: "done",
        responseStatus: ctx.response.status ?? 200,
        responseBody: body as unknown as Prisma.InputJsonValue,
      },
    });
    return { replay: false as const, body };
  });

  if (outcome.replay) {
    ctx.response.status = outcome.status;
    ctx.response.headers["Idempotent-Replayed"] = "true";
  }
  return outcome.body;
}
