import type { zApiKey } from "@cred/contracts/api-keys";
import { type Scope, STAFF_SCOPE } from "@cred/contracts/scopes";
import type { UnitOfWork } from "@cred/db";
import type { z } from "zod";
import { generateApiKey } from "../rpc/api-key-format";
import type { ApiKeyRow } from "../rpc/api-key-lookup-repository";
import type { Caches } from "../shared/caches";
import { DomainError, notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import { hashSecret } from "../shared/secret-box";
import { type ApiKeyScope, apiKeyRepository } from "./api-key-repository";

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
  if (input.scopes.includes(STAFF_SCOPE) && (scope.environment !== "production" || input.issuerId)) {
    // Console users work in both environments: a sandbox key that could add an administrator would
    // reach production (docs/api/staff-members.md).
    throw new DomainError(
      "ValidationFailed",
      `${STAFF_SCOPE} is for production keys without an issuer: team members work in both environments.`,
      [
        {
          code: "InvalidValue",
          target: "scopes",
          message: `${STAFF_SCOPE} needs a production key without an issuer`,
        },
      ],
    );
  }
  if (input.issuerId) {
    if (!(await apiKeyRepository.issuerExists(db, scope, input.issuerId))) throw notFound("The issuer");
  }
  const { key, prefix, secret } = generateApiKey();
  const row = await apiKeyRepository.create(db, {
    id: newId("key"),
    ...scope,
    name: input.name,
    prefix,
    secretHash: hashSecret(secret),
    scopes: [...new Set(input.scopes)],
    issuerId: input.issuerId ?? null,
    expiresAt: input.expiresAt ?? null,
  });
  return { ...toApiKeyDto(row), key };
}

export async function listApiKeys(db: UnitOfWork, scope: ApiKeyScope) {
  const rows = await apiKeyRepository.list(db, scope);
  return rows.map(toApiKeyDto);
}

/** The operator's list (CLI): every tenant's keys, or one tenant's, each with its tenant. */
export async function listApiKeysAcrossTenants(db: UnitOfWork, tenantId: string | undefined) {
  const rows = await apiKeyRepository.listAcrossTenants(db, tenantId);
  return rows.map((row) => ({ tenantId: row.tenantId, ...toApiKeyDto(row) }));
}

/**
 * Revokes a key of the scope (404 when it has none by that id); the operator's CLI passes only the
 * key's id (`scope` empty). `caches` are this process's: its cached row goes once the revocation commits.
 */
export async function revokeApiKey(db: UnitOfWork, caches: Caches, scope: Partial<ApiKeyScope>, id: string) {
  const row = await apiKeyRepository.findById(db, scope, id);
  if (!row) throw notFound("The API key");
  return toApiKeyDto(await apiKeyRepository.revoke(db, caches, row));
}
