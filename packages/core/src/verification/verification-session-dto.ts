import { INVOCATION_SCHEMES, type Invocation } from "@cred/contracts/invocation";
import type {
  TVerificationResult,
  TVerificationSession,
  VerificationSessionStatus,
} from "@cred/contracts/verification-sessions";
import { authorizationRequestLink, type Jwk, type ResponseMode } from "@cred/oid4vc";
import type { AppDeps, CoreConfig } from "../shared/context";
import type { SecretBox } from "../shared/secret-box";
import { byValueRequestLink, requestIsByValue, signedRequestLink } from "./request-by-value";
import { decodeTransactionData } from "./transaction-data";
import type { VerificationSessionRow } from "./verification-repository";

function base(config: Pick<CoreConfig, "publicBaseUrl">) {
  return config.publicBaseUrl.replace(/\/+$/, "");
}

/** Where the wallet fetches the signed request object (GET, or POST with `wallet_nonce`). */
export function requestUriOf(config: Pick<CoreConfig, "publicBaseUrl">, state: string): string {
  return `${base(config)}/verifier/requests/${state}`;
}

/** Where the wallet posts its response (`direct_post` / `direct_post.jwt`). */
export function responseUriOf(config: Pick<CoreConfig, "publicBaseUrl">, state: string): string {
  return `${base(config)}/verifier/responses/${state}`;
}

export const resultSealContext = (sessionId: string) => `verification-result:${sessionId}`;
export const encryptionKeySealContext = (sessionId: string) => `verification-encryption-key:${sessionId}`;

/** The session's response-encryption private key (direct_post.jwt, dc_api.jwt), opened from its seal. */
export function openEncryptionKey(
  secretBox: SecretBox,
  row: { id: string; encryptionKeyCipher: string },
): Jwk {
  return JSON.parse(secretBox.open(row.encryptionKeyCipher, encryptionKeySealContext(row.id))) as Jwk;
}

export function sealResult(secretBox: SecretBox, sessionId: string, result: TVerificationResult): string {
  return secretBox.seal(JSON.stringify(result), resultSealContext(sessionId));
}

export function toVerificationSessionDto(
  deps: { config: Pick<CoreConfig, "publicBaseUrl">; secretBox: SecretBox } & Pick<AppDeps, "caches">,
  row: VerificationSessionRow,
  options: { withholdResult?: boolean } = {},
): TVerificationSession {
  const requestUri = requestUriOf(deps.config, row.state);
  const scheme =
    INVOCATION_SCHEMES.presentation[row.invocation as Invocation] ?? INVOCATION_SCHEMES.presentation.openid;
  const dto: TVerificationSession = {
    id: row.id,
    status: row.status as VerificationSessionStatus,
    policy: row.policyIdentifier,
    purpose: row.purpose,
    ...(row.relyingPartyId ? { relyingPartyId: row.relyingPartyId } : {}),
    authorizationRequestUri: requestIsByValue(row)
      ? byValueRequestLink(deps, row, responseUriOf(deps.config, row.state), scheme)
      : (signedRequestLink(row, scheme) ??
        authorizationRequestLink({
          clientId: row.clientId,
          requestUri,
          requestUriMethod: "post",
          responseMode: row.responseMode as ResponseMode,
          scheme,
        })),
    requestUri,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
  if (row.dcApi && row.status === "pending")
    dto.dcApiRequest = (row.dcApi as { request: NonNullable<TVerificationSession["dcApiRequest"]> }).request;
  if (row.transactionData) dto.transactionData = decodeTransactionData(row.transactionData as string[]);
  if (row.resultCipher && options.withholdResult) dto.resultWithheld = true;
  else if (row.resultCipher) {
    dto.result = JSON.parse(deps.secretBox.open(row.resultCipher, resultSealContext(row.id)));
  }
  return dto;
}

/** What events carry: ids, state and policy identifier, never claims. */
export function sessionEventData(
  row: Pick<VerificationSessionRow, "id" | "policyIdentifier">,
  status: string,
) {
  return { verificationSessionId: row.id, status, policy: row.policyIdentifier };
}
