import type { zApiKey } from "@cred/contracts/api-keys";
import type { Scope } from "@cred/contracts/scopes";
import type { Db, UnitOfWork } from "@cred/db";
import type { z } from "zod";
import { generateApiKey } from "../rpc/api-key-format";
import { forgetApiKey } from "../rpc/authenticate-api-key";
import { DomainError, notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import { hashSecret } from "../shared/secret-box";

type ApiKeyRow = Awaited<ReturnType<Db["apiKey"]["findFirstOrThrow"]>>;

export function toApiKeyDto(row: ApiKeyRow): z.infer<typeof zApiKey> {
  const expired = row.expiresAt !== null && row.expiresAt.getTime() <= Date.now();
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    environment: row.environment as "sandbox" | "production",
    scopes: row.scopes as Scope[],
    issuerId: row.issuerId,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    status: row.revokedAt ? "revoked" : expired ? "expired" : "active",
  };
}

export async function createApiKey(
  db: UnitOfWork,
  scope: TenantScope,
  input: { name: string; scopes: Scope[]; issuerId?: string | null; expiresAt?: Date | null },
) {
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    // A key that is expired at birth would show its secret once and never work.
    throw new DomainError("ValidationFailed", "The expiry must be in the future.", [
      { code: "InvalidValue", target: "expiresAt", message: "must be in the future" },
    ]);
  }
  if (input.issuerId) {
    const issuer = await db.prisma.issuer.findFirst({ where: { id: input.issuerId, ...scope } });
    if (!issuer) throw notFound("The issuer");
  }
  const { key, prefix, secret } = generateApiKey();
  const row = await db.prisma.apiKey.create({
    data: {
      id: newId("key"),
      ...scope,
      name: input.name,
      prefix,
      secretHash: hashSecret(secret),
      scopes: [...new Set(input.scopes)],
      issuerId: input.issuerId ?? null,
      expiresAt: input.expiresAt ?? null,
    },
  });
  return { ...toApiKeyDto(row), key };
}

export async function listApiKeys(db: UnitOfWork, scope: Partial<TenantScope> & { tenantId: string }) {
  const rows = await db.prisma.apiKey.findMany({ where: scope, orderBy: { id: "asc" } });
  return rows.map(toApiKeyDto);
}

export async function revokeApiKey(
  db: UnitOfWork,
  scope: Partial<TenantScope> & { tenantId?: string },
  id: string,
) {
  const row = await db.prisma.apiKey.findFirst({ where: { id, ...scope } });
  if (!row) throw notFound("The API key");
  const updated = row.revokedAt
    ? row
    : await db.prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  forgetApiKey(row.prefix);
  return toApiKeyDto(updated);
}
