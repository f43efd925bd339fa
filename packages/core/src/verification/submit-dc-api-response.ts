import type { TSubmitDcApiResponseRequest } from "@cred/contracts/dc-api";
import type { TVerificationSession } from "@cred/contracts/verification-sessions";
import type { UnitOfWork } from "@cred/db";
import {
  type DcApiResponseMode,
  decodeJwtUnverified,
  decryptDirectPostJwt,
  type ParsedAuthorizationResponse,
  parseDcApiResponse,
  VpError,
  type VpToken,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import type { TPolicyRules } from "../verification-policies";
import type { DcApiSession } from "./dc-api";
import { alreadyDecided, decideSession, loadSession } from "./session-lifecycle";
import { assertVerifierTenantActive } from "./suspended-verifier";
import { runVerificationEngine, walletErrorResult } from "./verification-engine";
import { openEncryptionKey, toVerificationSessionDto } from "./verification-session-dto";

const invalid = (code: string, target: string, message: string) =>
  new DomainError("ValidationFailed", message, [{ code, target, message }]);

/**
 * The audience the presentations must name: `origin:<origin>` of the page that called
 * navigator.credentials.get, one of the session's origins (OpenID4VP 1.0 A.4: "the case even for signed
 * requests"). For a signed request the request's client_id is accepted too, as the audience wallets
 * built on pre-final drafts and oid4vc-ts's "effective client id" use; it names this session's verifier
 * as surely (the nonce binds the presentation to the session either way). The KB-JWT says which; when
 * it names none of them, the session's first origin is expected and the engine rejects the presentation
 * (`kb_audience_mismatch`) as for any other wrong audience.
 */
function presentedAudience(allowed: string[], vpToken: VpToken): string {
  const accepted = new Set(allowed);
  for (const presentations of Object.values(vpToken)) {
    for (const presentation of presentations) {
      const kbJwt = presentation.split("~").at(-1);
      if (!kbJwt) continue;
      try {
        const aud = decodeJwtUnverified(kbJwt).payload.aud;
        if (typeof aud === "string" && accepted.has(aud)) return aud;
      } catch {
        // not a KB-JWT: the engine says what is wrong
      }
    }
  }
  return allowed[0]!;
}

/**
 * VerificationSessions_SubmitDcApiResponse: what `navigator.credentials.get` returned on the
 * integrator's page (`{ protocol, data }`), handed back by its backend, decides a Digital Credentials API
 * session with the same engine, states, events and claim minimisation as the wallet's direct_post. The
 * `protocol` must be the request's; `data` is `{ response }` (JWE to the session's key) for `dc_api.jwt`,
 * `{ vp_token }` for `dc_api`, or a wallet error. The KB-JWT `aud` must be `origin:<one of the session's
 * origins>` (or, for a signed request, its client_id: `presentedAudience`), with the session's nonce; otherwise the session is
 * rejected with the engine's reasons. A response that cannot be read (not this protocol, malformed, not
 * decryptable with the session's key) → 400 and the session stays pending; a session no longer pending
 * (answered already: a replay) → 409; not a DC API session → 409.
 */
export async function submitDcApiResponse(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TSubmitDcApiResponseRequest,
): Promise<TVerificationSession> {
  const row = await loadSession(deps, db, scope, input.id);
  if (row.status !== "pending") throw alreadyDecided(row.status);
  const dcApi = row.dcApi as DcApiSession | null;
  if (!dcApi) {
    throw new DomainError(
      "InvalidState",
      "The verification session was not created for the Digital Credentials API (Verifications_Create with dcApi).",
      [{ code: "NotDcApiSession", target: "id", message: "Not a Digital Credentials API session." }],
    );
  }
  await assertVerifierTenantActive(deps, scope.tenantId);
  if (input.protocol !== dcApi.request.protocol) {
    throw invalid(
      "ProtocolMismatch",
      "protocol",
      `The response is for ${input.protocol}; this session's request is ${dcApi.request.protocol}.`,
    );
  }
  let parsed: ParsedAuthorizationResponse;
  try {
    parsed = await parseDcApiResponse(input.data, {
      responseMode: row.responseMode as DcApiResponseMode,
      decrypt: async (jwe) => {
        if (!row.encryptionKeyCipher) throw new VpError("invalid_request", "no encryption key");
        const privateJwk = openEncryptionKey(deps.secretBox, {
          id: row.id,
          encryptionKeyCipher: row.encryptionKeyCipher,
        });
        try {
          return await decryptDirectPostJwt(jwe, privateJwk);
        } catch (error) {
          throw invalid(
            "ResponseNotDecryptable",
            "data.response",
            `The response is not encrypted to this session's key (${error instanceof Error ? error.message : "undecryptable"}).`,
          );
        }
      },
    });
  } catch (error) {
    if (error instanceof VpError)
      throw invalid("InvalidResponse", "data", `The response is malformed: ${error.message}.`);
    throw error;
  }

  const rules = row.rules as TPolicyRules;
  const origins = dcApi.origins.map((origin) => `origin:${origin}`);
  const clientId =
    parsed.kind === "vp_token"
      ? presentedAudience(
          dcApi.request.protocol === "openid4vp-v1-signed" ? [...origins, row.clientId] : origins,
          parsed.vpToken,
        )
      : row.clientId;
  const result =
    parsed.kind === "error"
      ? walletErrorResult(parsed.error, parsed.errorDescription)
      : await runVerificationEngine(
          deps,
          {
            scope,
            rules,
            clientId,
            nonce: row.nonce,
            transactionData: row.transactionData as string[] | null,
          },
          parsed.vpToken,
        );
  const decided = await decideSession(deps, row, result);
  if (!decided) {
    const current = await loadSession(deps, db, scope, input.id);
    throw alreadyDecided(current.status);
  }
  return toVerificationSessionDto(deps, decided);
}
