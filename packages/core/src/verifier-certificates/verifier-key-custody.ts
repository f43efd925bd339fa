import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import {
  type CustodyChoice,
  custodyChoiceProblem,
  type GeneratedKey,
  keyCustodyNotConfigured,
  type StoredKeyReference,
} from "../shared/key-custody";
import type { TenantScope } from "../shared/principal";
import {
  isHeldElsewhere,
  type VerifierKeyPlace,
  verifierKeyOf,
  verifierKeySealContext,
} from "../verification";

/** The CKA_LABEL of a verifier key in a token: which partition's request objects it signs. */
export const verifierKeyLabel = (scope: TenantScope) =>
  `${scope.tenantId}:${scope.environment} verifier_request_signing`;

/**
 * A fresh ES256 key for the partition's verifier, generated inside the provider (an HSM for `pkcs11`:
 * sensitive, not extractable; in the token the choice names by label, else the platform's). 400 when the
 * provider or token is not configured, 503 `KeyCustodyUnavailable`
 * while it is unreachable (nothing made).
 */
export async function generateVerifierKey(
  deps: AppDeps,
  scope: TenantScope,
  custody: CustodyChoice,
): Promise<GeneratedKey> {
  const problem = custodyChoiceProblem(deps.keyCustody, custody, "keyCustody");
  if (problem) throw keyCustodyNotConfigured([problem]);
  return deps.keyCustody.providerFor(custody).generate({
    usage: "sign",
    sealedFor: verifierKeySealContext(scope),
    label: verifierKeyLabel(scope),
  });
}

/**
 * Destroys a verifier key held outside the database (a request replaced, a certificate replaced, a key
 * made for a change that failed). A token unreachable just then leaves the key there, unreferenced and
 * never used again; `pnpm cli issuer-keys list` shows such keys (docs/key-custody.md).
 */
export async function destroyVerifierKeyQuietly(
  deps: AppDeps,
  scope: TenantScope,
  columns: VerifierKeyPlace,
): Promise<void> {
  if (!isHeldElsewhere(columns)) return;
  const key: StoredKeyReference = verifierKeyOf({ ...columns, privateKeyCipher: null }, scope);
  try {
    await deps.keyCustody.of(key).destroy(key);
  } catch {}
}

/**
 * Destroys a verifier key held outside the database once what `db` wrote commits (at once, awaited, at
 * the root): a key the replaced row named must stay while a rollback could bring that row back.
 */
export async function destroyVerifierKeyOnceCommitted(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  columns: VerifierKeyPlace,
): Promise<void> {
  if (!isHeldElsewhere(columns)) return;
  if (!db.inTransaction) return destroyVerifierKeyQuietly(deps, scope, columns);
  db.afterCommit(() => void destroyVerifierKeyQuietly(deps, scope, columns));
}
