import {
  authorizationRequestLinkByValue,
  buildAuthorizationRequest,
  REDIRECT_URI_PREFIX,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import type { TPolicyRules } from "../verification-policies";
import { dcqlQueryFor } from "./policy-query";
import type { VerificationSessionRow } from "./verification-repository";
import { verifierInfoOf } from "./verifier-info";

/** Whether a session's request travels by value, unsigned: the `redirect_uri` client identifier prefix. */
export function requestIsByValue(row: Pick<VerificationSessionRow, "clientId" | "dcApi">): boolean {
  return row.dcApi === null && row.clientId.startsWith(REDIRECT_URI_PREFIX);
}

/**
 * The authorization request link of a `redirect_uri` session (OpenID4VP §5.9.3): every parameter by
 * value, unsigned, `direct_post` to the session's response URI (its client_id). Built from the session
 * and its policy snapshot, like the request object of the other prefixes.
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
