import {
  decryptDirectPostJwt,
  generateResponseCode,
  type ParsedAuthorizationResponse,
  parseAuthorizationResponse,
  VpError,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { hashSecret } from "../shared/secret-box";
import type { TPolicyRules } from "../verification-policies";
import { createdSessions } from "./created-sessions";
import { invalidPresentationReasons } from "./invalid-presentation";
import { decideSession, scopeOfRow, settleExpiry } from "./session-lifecycle";
import { assertVerifierTenantActive } from "./suspended-verifier";
import { runVerificationEngine, walletErrorResult } from "./verification-engine";
import { verificationRepository } from "./verification-repository";
import { openEncryptionKey } from "./verification-session-dto";

/** What the wallet is told once its response is taken: where to send the person (same-device flow). */
export interface WalletResponseReceived {
  redirectUri?: string;
}

/**
 * The response_uri endpoint (OpenID4VP §8.2, §8.3): takes `direct_post` (`vp_token`, `state`) or
 * `direct_post.jwt` (`response` JWE, decrypted with the session's single-use key) or a wallet error
 * (`error`, `error_description`), runs the engine and decides the session. Returns nothing more to
 * tell the wallet or, when the policy has a same-device redirect, `redirectUri`
 * `<uri>#response_code=<fresh>` (the code is stored hashed). Malformed input, a wrong `state`, or a session that is not pending → 400 in the
 * OAuth shape (a decided session refuses a second answer). Under a policy with
 * `reportInvalidPresentationsToWallet`, a presentation that fails integrity or holder binding is
 * answered 400 `invalid_request` once the session is decided (rejected, as always; no response code,
 * since no redirect would deliver it).
 */
export async function receiveWalletResponse(
  deps: AppDeps,
  handle: string,
  form: URLSearchParams | undefined,
): Promise<WalletResponseReceived> {
  if (!form) throw new VpError("invalid_request", "send the response as application/x-www-form-urlencoded");
  const found =
    createdSessions.take(deps.caches, handle) ??
    (await verificationRepository.findSessionByState(deps.database.root, handle));
  if (!found) throw new VpError("invalid_request", "unknown request");
  const row = await settleExpiry(deps, deps.database.root, found);
  if (row.status !== "pending") throw new VpError("invalid_request", `the request is ${row.status}`);
  if (row.dcApi)
    throw new VpError("invalid_request", "this request is answered through the Digital Credentials API");
  await assertVerifierTenantActive(deps, row.tenantId);

  const responseMode = row.responseMode as "direct_post" | "direct_post.jwt";
  const parsed: ParsedAuthorizationResponse = await parseAuthorizationResponse(form, {
    responseMode,
    decrypt: async (jwe) => {
      if (!row.encryptionKeyCipher)
        throw new VpError("invalid_request", "encrypted responses are not accepted");
      return decryptDirectPostJwt(
        jwe,
        openEncryptionKey(deps.secretBox, { id: row.id, encryptionKeyCipher: row.encryptionKeyCipher }),
      );
    },
  });
  if (parsed.state !== row.state) throw new VpError("invalid_request", "state does not match the request");

  const rules = row.rules as TPolicyRules;
  const result =
    parsed.kind === "error"
      ? walletErrorResult(parsed.error, parsed.errorDescription)
      : await runVerificationEngine(
          deps,
          {
            scope: scopeOfRow(row),
            rules,
            clientId: row.clientId,
            nonce: row.nonce,
            transactionData: row.transactionData as string[] | null,
          },
          parsed.vpToken,
        );

  // OpenID4VP §8.5: the wallet hears of an invalid presentation when the policy asks for it (the
  // session is decided all the same, with the same event); a wallet's own error is not one.
  const invalid =
    rules.reportInvalidPresentationsToWallet === true && parsed.kind !== "error"
      ? invalidPresentationReasons(result)
      : [];
  const responseCode =
    rules.sameDeviceRedirectUri && invalid.length === 0 ? generateResponseCode() : undefined;
  const decided = await decideSession(
    deps,
    row,
    result,
    responseCode ? { responseCodeHash: hashSecret(responseCode) } : {},
  );
  if (!decided) throw new VpError("invalid_request", "the request has already been answered or has expired");
  if (invalid.length > 0) {
    throw new VpError(
      "invalid_request",
      `the presentation failed verification (${invalid.join(", ")}); the verifier rejected the response`,
    );
  }
  if (!responseCode) return {};
  return { redirectUri: `${rules.sameDeviceRedirectUri}#response_code=${responseCode}` };
}
