import {
  authorizationRequestLinkByValue,
  authorizationRequestLinkWithRequest,
  type Jwk,
  REDIRECT_URI_PREFIX,
  type ResponseMode,
  signRequestObject,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import type { TPolicyRules } from "../verification-policies";
import { dcqlQueryFor, walletDcqlQueryFor } from "./policy-query";
import { type SessionRequestSource, sessionRequestPayload, sessionRequestSourceOf } from "./session-request";
import type { VerificationSessionRow } from "./verification-repository";
import { requestObjectSigner, type VerifierIdentity } from "./verifier-identity";

/** Whether a session's request travels by value, unsigned: the `redirect_uri` client identifier prefix. */
export function requestIsByValue(row: Pick<VerificationSessionRow, "clientId" | "dcApi">): boolean {
  return row.dcApi === null && row.clientId.startsWith(REDIRECT_URI_PREFIX);
}

/**
 * The authorization request link of a `redirect_uri` session (OpenID4VP §5.9.3): every parameter by
 * value, unsigned, `direct_post` to the session's response URI (its client_id). Built from the session
 * and its policy snapshot by `sessionRequestPayload`, like the request object of the other prefixes,
 * with one deliberate difference: its DCQL query is `dcqlQueryFor`, not `walletDcqlQueryFor`, so it
 * carries no `trusted_authorities` of trust sources. The link is rebuilt on every read of the session
 * (Verifications_Get, _List, the create response) from the stored row alone: it stays synchronous,
 * costs no trust-list reads per listed row, and reads the same every time, where the trust sources'
 * CAs change as their lists refresh. `trusted_authorities` is an optional hint to the wallet (DCQL
 * §6.1.1); the engine decides trust by the sources either way. `iat` is the session's creation.
 */
export function byValueRequestLink(
  deps: Pick<AppDeps, "caches">,
  row: VerificationSessionRow,
  responseUri: string,
  scheme: string,
): string {
  const source = { ...sessionRequestSourceOf(row, responseUri), responseMode: "direct_post" as const };
  const payload = sessionRequestPayload(source, {
    dcqlQuery: dcqlQueryFor(deps, row.rules as TPolicyRules),
    iat: Math.floor(row.createdAt.getTime() / 1000),
  });
  return authorizationRequestLinkByValue(payload, scheme);
}

/**
 * The signed request object of a session created with `requestByValue` (RFC 9101 `request=`): built
 * at creation like the request_uri one (`sessionRequestPayload`), except that no wallet asked for it
 * yet, so it carries no `wallet_nonce` and the static `aud`.
 */
export async function signedRequestByValue(
  deps: Pick<AppDeps, "caches" | "database">,
  scope: TenantScope,
  session: SessionRequestSource & { responseMode: ResponseMode; responseUri: string },
  extras: { identity: VerifierIdentity; encryptionJwk: Jwk | null; iat: number },
): Promise<string> {
  const payload = sessionRequestPayload(session, {
    dcqlQuery: await walletDcqlQueryFor(deps, scope, session.rules),
    encryptionJwk: extras.encryptionJwk,
    iat: extras.iat,
  });
  return signRequestObject(payload, requestObjectSigner(extras.identity, session.clientId));
}

/** The link of a session whose signed request object travels in it (`requestByValue`). */
export function signedRequestLink(row: VerificationSessionRow, scheme: string): string | null {
  if (!row.requestObject || row.status !== "pending") return null;
  return authorizationRequestLinkWithRequest({ clientId: row.clientId, request: row.requestObject, scheme });
}
