import {
  type AuthorizationRequestPayload,
  buildAuthorizationRequest,
  type DcqlQuery,
  type Jwk,
  type ResponseMode,
  type VerifierInfo,
} from "@cred/oid4vc";
import type { TPolicyRules } from "../verification-policies";
import type { VerificationSessionRow } from "./verification-repository";
import { verifierInfoOf } from "./verifier-info";

/** What of a session (a stored row, or one about to be stored) its authorization request is built from. */
export interface SessionRequestSource {
  clientId: string;
  state: string;
  nonce: string;
  /** The policy snapshot: `verifier_info` comes from it. */
  rules: TPolicyRules;
  transactionData: string[] | null;
  expiresAt: Date;
}

/**
 * What the caller decides: the DCQL query (the wallet one with trust sources' `trusted_authorities`, or
 * the synchronous one, see `byValueRequestLink`), the public encryption key of `.jwt` modes, `iat`
 * (seconds) and, for the request_uri POST flow, what the wallet sent.
 */
export interface SessionRequestExtras {
  dcqlQuery: DcqlQuery;
  encryptionJwk?: Jwk | null;
  iat: number;
  walletNonce?: string;
  walletIssuer?: string;
}

/**
 * The parameters every request of a session carries, whatever the channel (request object, request
 * link, Digital Credentials API): nonce, DCQL query, encryption key, transaction data, `verifier_info`,
 * `iat`, and `exp` = the session's expiry (at least one second after `iat`).
 */
export function sessionRequestCommon(
  session: Pick<SessionRequestSource, "nonce" | "rules" | "transactionData" | "expiresAt">,
  extras: Pick<SessionRequestExtras, "dcqlQuery" | "encryptionJwk" | "iat">,
): {
  nonce: string;
  dcqlQuery: DcqlQuery;
  encryptionJwk?: Jwk;
  transactionData?: string[];
  verifierInfo?: VerifierInfo[];
  iat: number;
  exp: number;
} {
  return {
    nonce: session.nonce,
    dcqlQuery: extras.dcqlQuery,
    ...(extras.encryptionJwk ? { encryptionJwk: extras.encryptionJwk } : {}),
    ...(session.transactionData ? { transactionData: session.transactionData } : {}),
    ...verifierInfoOf(session.rules),
    iat: extras.iat,
    exp: Math.max(extras.iat + 1, Math.floor(session.expiresAt.getTime() / 1000)),
  };
}

/**
 * The authorization request of a redirect-flow session (OpenID4VP §5): the one mapping behind the
 * request_uri object (`serveRequestObject`), the signed request by value (`signedRequestByValue`) and
 * the unsigned `redirect_uri` link (`byValueRequestLink`). `responseUri` is the session's response URI.
 */
export function sessionRequestPayload(
  session: SessionRequestSource & { responseMode: ResponseMode; responseUri: string },
  extras: SessionRequestExtras,
): AuthorizationRequestPayload {
  return buildAuthorizationRequest({
    ...sessionRequestCommon(session, extras),
    clientId: session.clientId,
    responseUri: session.responseUri,
    responseMode: session.responseMode,
    state: session.state,
    ...(extras.walletNonce !== undefined ? { walletNonce: extras.walletNonce } : {}),
    ...(extras.walletIssuer !== undefined ? { walletIssuer: extras.walletIssuer } : {}),
  });
}

/** A stored session as the source of its redirect-flow request, answered at `responseUri` (`responseUriOf`). */
export function sessionRequestSourceOf(
  row: VerificationSessionRow,
  responseUri: string,
): SessionRequestSource & { responseMode: ResponseMode; responseUri: string } {
  return {
    clientId: row.clientId,
    state: row.state,
    nonce: row.nonce,
    rules: row.rules as TPolicyRules,
    transactionData: row.transactionData as string[] | null,
    expiresAt: row.expiresAt,
    responseMode: row.responseMode as ResponseMode,
    responseUri,
  };
}
