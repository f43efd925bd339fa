import { type Environment, isScope, type Scope } from "@cred/contracts/scopes";
import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { Principal } from "../shared/principal";
import { constantTimeEqual, hashSecret } from "../shared/secret-box";
import { parseApiKey } from "./api-key-format";
import { apiKeyLookupRepository } from "./api-key-lookup-repository";

export type ApiKeyLookup = { ok: true; principal: Principal } | { ok: false; reason: string };

export async function findApiKeyPrincipal(
  db: UnitOfWork,
  caches: Caches,
  key: string,
): Promise<ApiKeyLookup> {
  const parsed = parseApiKey(key);
  if (!parsed) return { ok: false, reason: "The API key is malformed." };
  const row = await apiKeyLookupRepository.findByPrefix(db, caches, parsed.prefix);
  // Hash even on a miss so the timing of unknown and wrong keys matches.
  const presented = hashSecret(parsed.secret);
  if (!row || !constantTimeEqual(presented, row.secretHash))
    return { ok: false, reason: "The API key is not valid." };
  if (row.revokedAt) return { ok: false, reason: "The API key has been revoked." };
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now())
    return { ok: false, reason: "The API key has expired." };
  apiKeyLookupRepository.noteUsed(db, caches, row);
  return {
    ok: true,
    principal: {
      kind: "apiKey",
      id: row.id,
      tenantId: row.tenantId,
      environment: row.environment as Environment,
      scopes: new Set(row.scopes.filter(isScope) as Scope[]),
      issuerId: row.issuerId,
      name: row.name,
    },
  };
}
