import {
  authorizationRequestLinkByValue,
  authorizationRequestLinkWithRequest,
  buildAuthorizationRequest,
  type Jwk,
  REDIRECT_URI_PREFIX,
  signRequestObject,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import type { TPolicyRules } from "../verification-policies";
import { dcqlQueryFor, walletDcqlQueryFor } from "./policy-query";
import type { VerificationSessionRow } from "./verification-repository";
import { requestObjectSigner, type VerifierIdentity } from "./verifier-identity";
import { verifierInfoOf } from "./verifier-info";

/** Whether a session's request travels by value, unsigned: the `redirect_uri` client identifier prefix. */
export function requestIsByValue(row: Pick<VerificationSessionRow, "clientId" | "dcApi">): boolean {
  return row.dcApi === null && row.clientId.startsWith(REDIRECT_URI_PREFIX);
}

/**
 * The authorization request link of a `redirect_uri` session (OpenID4VP §5.9.3): every parameter by
 * value, unsigned, `direct_post` to the session's response URI (its client_id). Built from the session
 * and its policy snapshot, like the request object of the other prefixes. Built while the session is
 * read (synchronously), so its query carries no `trusted_authorities` of trust sources (an optional hint
 * to the wallet; the engine still decides trust by the sources).
 */
export function byValueRequestLink(
  deps: Pick<AppDeps, "caches">,
  row: VerificationSessionRow,
  responseUri: string,
  scheme: string,
): string {
  const iat = Math.floor(row.createdAt.getTime() / 1000);
  const payload = buildAuthorizationRequest({
    clientId: row.clientId,
    responseUri,
    responseMode: "direct_post",
    nonce: row.nonce,
    state: row.state,
    dcqlQuery: dcqlQueryFor(deps, row.rules as TPolicyRules),
    ...(row.transactionData ? { transactionData: row.transactionData as string[] } : {}),
    ...verifierInfoOf(row.rules as TPolicyRules),
    iat,
    exp: Math.max(iat + 1, Math.floor(row.expiresAt.getTime() / 1000)),
  });
  return authorizationRequestLinkByValue(payload, scheme);
}

/**
 * The signed request object of a session created with `requestByValue` (RFC 9101 `request=`): built
 * at creation like the request_uri one, except that no wallet asked for it yet, so it carries no
 * `wallet_nonce` and the static `aud`.
 */
export async function signedRequestByValue(
  deps: Pick<AppDeps, "caches" | "database">,
  scope: TenantScope,
  input: {
    identity: VerifierIdentity;
    clientId: string;
    responseUri: string;
    responseMode: "direct_post" | "direct_post.jwt";
    nonce: string;
    state: string;
    rules: TPolicyRules;
    encryptionJwk: Jwk | null;
    transactionData: string[] | null;
    iat: number;
    exp: number;
  },
): Promise<string> {
  const payload = buildAuthorizationRequest({
    clientId: input.clientId,
    responseUri: input.responseUri,
    responseMode: input.responseMode,
    nonce: input.nonce,
    state: input.state,
    dcqlQuery: await walletDcqlQueryFor(deps, scope, input.rules),
    ...(input.encryptionJwk ? { encryptionJwk: input.encryptionJwk } : {}),
    ...(input.transactionData ? { transactionData: input.transactionData } : {}),
    ...verifierInfoOf(input.rules),
    iat: input.iat,
    exp: Math.max(input.iat + 1, input.exp),
  });
  return signRequestObject(payload, requestObjectSigner(input.identity, input.clientId));
}

/** The link of a session whose signed request object travels in it (`requestByValue`). */
export function signedRequestLink(row: VerificationSessionRow, scheme: string): string | null {
  if (!row.requestObject || row.status !== "pending") return null;
  return authorizationRequestLinkWithRequest({ clientId: row.clientId, request: row.requestObject, scheme });
}
