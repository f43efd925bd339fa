import { type Db, inTransaction } from "@cred/db";
import type { z } from "zod";
import type { CoreConfig } from "../context";
import { issuerUrls } from "../issuance/issuance-urls";
import { DomainError, notFound } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { Principal } from "../shared/principal";
import { scopeOfRow } from "../shared/scope-of";
import type { zCredentialStatus } from "./credential.schema";

type CredentialRow = NonNullable<Awaited<ReturnType<Db["credential"]["findUnique"]>>>;

function toDto(
  config: CoreConfig,
  row: CredentialRow,
  configurationIdentifier: string,
): z.infer<typeof zCredentialStatus> {
  return {
    credentialId: row.id,
    status: row.status as "issued" | "revoked",
    issuerId: row.issuerId,
    credentialConfiguration: configurationIdentifier,
    issuedAt: row.issuedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    statusList:
      row.statusListId !== null && row.statusIndex !== null
        ? { uri: issuerUrls(config, row.issuerId).statusList(row.statusListId), idx: row.statusIndex }
        : null,
  };
}

/**
 * Revokes a credential: irreversible and immediate. The status bits are set with one atomic UPDATE
 * (2 bits per entry, LSB first) and the list version bumped, so the next status list fetch — even on
 * another process — shows it. Revoking again returns the revoked state (200).
 */
export async function revokeCredential(
  db: Db,
  config: CoreConfig,
  principal: Principal,
  credentialId: string,
) {
  const row = await db.credential.findFirst({
    where: {
      id: credentialId,
      tenantId: principal.tenantId,
      environment: principal.environment,
      ...(principal.issuerId ? { issuerId: principal.issuerId } : {}),
    },
  });
  if (!row) throw notFound("The credential");
  const configuration = await db.credentialConfiguration.findUniqueOrThrow({
    where: { id: row.configurationId },
  });
  if (row.status === "revoked") return toDto(config, row, configuration.identifier);
  if (row.statusListId === null || row.statusIndex === null) {
    throw new DomainError(
      "RevocationNotSupported",
      "This credential was issued without a status entry (statusEnabled is false), so it cannot be revoked.",
    );
  }
  const listId = row.statusListId;
  const idx = row.statusIndex;
  const updated = await inTransaction(db, async (tx) => {
    const { count } = await tx.credential.updateMany({
      where: { id: row.id, status: "issued" },
      data: { status: "revoked", revokedAt: new Date() },
    });
    if (count === 1) {
      await tx.$executeRaw`
        UPDATE "StatusList"
           SET "data" = set_byte("data", ${idx >> 2}::int, get_byte("data", ${idx >> 2}::int) | ${1 << ((idx & 3) * 2)}::int),
               "version" = "version" + 1,
               "updatedAt" = now()
         WHERE "id" = ${listId}`;
      await emitEvent(tx, scopeOfRow(row), "credential.revoked", {
        credentialId: row.id,
        issuerId: row.issuerId,
        credentialConfiguration: configuration.identifier,
        transactionId: row.transactionId,
        status: "revoked",
      });
    }
    return tx.credential.findUniqueOrThrow({ where: { id: row.id } });
  });
  return toDto(config, updated, configuration.identifier);
}
