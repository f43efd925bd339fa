import type { FastSql } from "@cred/db";

/**
 * Locks every credential of an issuance transaction (the copies of a batch), in id order. Whatever
 * updates several copies in one database transaction (a batch revocation, a wallet notification) takes
 * this first, so two of them queue instead of each holding some copies and waiting for the others
 * (PostgreSQL: deadlock detected). The embedded database runs one transaction at a time anyway.
 */
export async function lockBatch(sql: FastSql, transactionId: string): Promise<void> {
  await sql.query(`SELECT 1 FROM "Credential" WHERE "transactionId" = $1 ORDER BY "id" FOR UPDATE`, [
    transactionId,
  ]);
}
