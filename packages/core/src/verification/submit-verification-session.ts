import { createHash } from "node:crypto";
import type {
  TSubmitVerificationSessionRequest,
  TVerificationSession,
} from "@cred/contracts/verification-sessions";
import type { UnitOfWork } from "@cred/db";
import { decodeJwtUnverified } from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { constantTimeEqual } from "../shared/secret-box";
import type { TPolicyRules } from "../verification-policies";
import { dcqlQueryFor } from "./policy-query";
import { alreadyDecided, decideSession, loadSession } from "./session-lifecycle";
import { typeAncestors } from "./type-ancestors";
import { runVerificationEngine } from "./verification-engine";
import { verificationRepository } from "./verification-repository";
import { toVerificationSessionDto } from "./verification-session-dto";

const invalid = (code: string, target: string, message: string) =>
  new DomainError("ValidationFailed", message, [{ code, target, message }]);

/** Credential.digest: base64url(SHA-256(issuer-signed JWT)), the compact part before the first `~`. */
export function credentialDigest(sdJwtVc: string): string {
  return createHash("sha256")
    .update(sdJwtVc.split("~")[0] ?? "")
    .digest("base64url");
}

/**
 * The policy credential a presentation answers through its type's `extends` chain, among those that
 * accept extended types (the engine checks the chain again, from its cache, when it verifies).
 */
async function byExtendedType(deps: AppDeps, rules: TPolicyRules, payload: Record<string, unknown>) {
  const following = rules.credentials.filter((c) => c.acceptExtendedTypes);
  if (following.length === 0) return undefined;
  const integrity = payload["vct#integrity"];
  if (typeof payload.vct !== "string" || (integrity !== undefined && typeof integrity !== "string"))
    return undefined;
  const ancestors = await typeAncestors(deps, payload.vct, integrity);
  return following.find((c) => ancestors.some((type) => c.credentialTypes.includes(type)));
}

/**
 * VerificationSessions_Submit, the legacy server-to-server alternative to the wallet callback: the
 * same engine decides the same session. `credentialId` must name the platform credential (this tenant
 * and environment) presented in `sdJwtVc`; `audience`, when given, must be the session's client_id.
 * The presentation answers the policy credential whose `credentialTypes` list its `vct` or one of its
 * `aka_vcts`, else one accepting extended types that lists a type its `vct` extends, else the first.
 * A session that is no longer pending → 409.
 */
export async function submitVerificationSession(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TSubmitVerificationSessionRequest,
): Promise<TVerificationSession> {
  const row = await loadSession(deps, db, scope, input.id);
  if (row.status !== "pending") throw alreadyDecided(row.status);
  if (input.audience != null && input.audience !== row.clientId) {
    throw invalid("AudienceMismatch", "audience", "The audience is not this session's client_id.");
  }
  // The credential's types, to pick the policy credential it answers: its vct and aka_vcts (issuer-signed).
  let payload: Record<string, unknown>;
  let types: string[];
  try {
    payload = decodeJwtUnverified(input.sdJwtVc.split("~")[0] ?? "").payload;
    const { vct, aka_vcts: aka } = payload;
    types = [vct, ...(Array.isArray(aka) ? aka : [])].filter((t): t is string => typeof t === "string");
  } catch {
    throw invalid("InvalidPresentation", "sdJwtVc", "sdJwtVc is not a compact SD-JWT VC.");
  }
  const credential = await verificationRepository.findCredential(db, scope, input.credentialId);
  if (!credential || !constantTimeEqual(credential.digest, credentialDigest(input.sdJwtVc))) {
    throw invalid(
      "CredentialMismatch",
      "credentialId",
      "credentialId does not name the credential presented in sdJwtVc.",
    );
  }

  const rules = row.rules as TPolicyRules;
  const query = dcqlQueryFor(deps, rules);
  const match =
    rules.credentials.find((c) => types.some((type) => c.credentialTypes.includes(type))) ??
    (await byExtendedType(deps, rules, payload));
  const queryId = (match ?? rules.credentials[0]!).id;
  const result = await runVerificationEngine(
    deps,
    {
      scope,
      rules,
      clientId: row.clientId,
      nonce: row.nonce,
      transactionData: row.transactionData as string[] | null,
    },
    { [queryId]: [input.sdJwtVc] },
    { query },
  );
  const decided = await decideSession(deps, row, result);
  if (!decided) {
    const current = await loadSession(deps, db, scope, input.id);
    throw alreadyDecided(current.status);
  }
  return toVerificationSessionDto(deps, decided);
}
