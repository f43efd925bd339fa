import { Prisma, type UnitOfWork } from "@cred/db";
import { newId } from "./ids";
import type { TenantScope } from "./principal";

/** One Idempotency-Key of one operation, in the caller's tenant and environment. */
export interface IdempotencyKeyRef {
  operation: string;
  key: string;
}

const unique = (scope: TenantScope, ref: IdempotencyKeyRef) => ({
  tenantId_environment_operation_key: { ...scope, operation: ref.operation, key: ref.key },
});

/** The `IdempotencyRecord` statements of shared/idempotency.ts; every record belongs to a tenant scope. */
export const idempotencyRepository = {
  /** Claims the key in flight until `expiresAt`; false when a record for it exists already. */
  async claim(
    db: UnitOfWork,
    scope: TenantScope,
    ref: IdempotencyKeyRef,
    fingerprint: string,
    expiresAt: Date,
  ): Promise<boolean> {
    const { tenantId, environment } = scope;
    const { operation, key } = ref;
    const inserted = await db.prisma.$executeRaw`
      INSERT INTO "IdempotencyRecord" ("id","tenantId","environment","operation","key","fingerprint","state","expiresAt")
      VALUES (${newId("idem")}, ${tenantId}, ${environment}, ${operation}, ${key}, ${fingerprint}, 'in_flight',
              ${expiresAt})
      ON CONFLICT ("tenantId","environment","operation","key") DO NOTHING`;
    return inserted === 1;
  },
  find(db: UnitOfWork, scope: TenantScope, ref: IdempotencyKeyRef) {
    return db.prisma.idempotencyRecord.findUnique({ where: unique(scope, ref) });
  },
  /**
   * Claims the key anew (expired, or abandoned in flight) if its record still expires at
   * `expectedExpiresAt` as read; false when another request took it over first.
   */
  async takeOver(
    db: UnitOfWork,
    scope: TenantScope,
    ref: IdempotencyKeyRef,
    expectedExpiresAt: Date,
    claimed: { fingerprint: string; state: string; expiresAt: Date },
  ): Promise<boolean> {
    const { count } = await db.prisma.idempotencyRecord.updateMany({
      where: { ...scope, operation: ref.operation, key: ref.key, expiresAt: expectedExpiresAt },
      data: { ...claimed, responseStatus: null, responseBody: Prisma.DbNull },
    });
    return count === 1;
  },
  /** Stores the operation's (sealed) response and marks the key done. */
  async complete(
    db: UnitOfWork,
    scope: TenantScope,
    ref: IdempotencyKeyRef,
    response: { status: number; body: Prisma.InputJsonValue },
  ): Promise<void> {
    await db.prisma.idempotencyRecord.update({
      where: unique(scope, ref),
      data: { state: "done", responseStatus: response.status, responseBody: response.body },
    });
  },
  /** Drops the key's in-flight claim (its operation failed), so a corrected retry runs. */
  async release(db: UnitOfWork, scope: TenantScope, ref: IdempotencyKeyRef): Promise<void> {
    await db.prisma.idempotencyRecord.deleteMany({
      where: { ...scope, operation: ref.operation, key: ref.key, state: "in_flight" },
    });
  },
};

/** A stored response as read back (sealed, or a plain body written before sealing). */
export type StoredIdempotentResponse = Prisma.JsonValue | null;
