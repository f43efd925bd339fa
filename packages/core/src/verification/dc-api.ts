import type { TCreateVerificationRequest } from "@cred/contracts/verification-sessions";
import {
  createDcApiRequest,
  type DcApiRequest,
  type DcApiResponseMode,
  type DcqlQuery,
  type Jwk,
  originClientId,
  webOrigin,
} from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { TPolicyRules } from "../verification-policies";
import { type SessionRequestSource, sessionRequestCommon } from "./session-request";
import { requestObjectSigner, type VerifierIdentity } from "./verifier-identity";

/** What a Digital Credentials API session keeps (`VerificationSession.dcApi`). */
export interface DcApiSession {
  origins: string[];
  request: DcApiRequest;
}

const invalid = (code: string, target: string, message: string) =>
  new DomainError("ValidationFailed", message, [{ code, target, message }]);

/** The DC API response mode for a policy's response mode: `dc_api.jwt` when it encrypts, else `dc_api`. */
export function dcApiResponseMode(rules: TPolicyRules): DcApiResponseMode {
  return rules.responseMode === "direct_post" ? "dc_api" : "dc_api.jwt";
}

/**
 * Checks a Verifications_Create `dcApi` against the policy (`dcApi`: `off`, `signed`, or
 * `signed_or_unsigned`, the default for policies stored before it) and normalises the origins.
 */
export function dcApiChannel(
  rules: TPolicyRules,
  options: NonNullable<TCreateVerificationRequest["dcApi"]>,
): { origins: string[]; signed: boolean } {
  const allowed = rules.dcApi ?? "signed_or_unsigned";
  if (allowed === "off") {
    throw invalid("DcApiNotAllowed", "dcApi", "The policy does not allow the Digital Credentials API.");
  }
  if (!options.signed && allowed === "signed") {
    throw invalid(
      "DcApiSignedRequestRequired",
      "dcApi.signed",
      "The policy allows only signed Digital Credentials API requests (openid4vp-v1-signed).",
    );
  }
  const origins = [
    ...new Set(
      options.origins.map((o) => {
        try {
          return webOrigin(o);
        } catch {
          throw invalid("InvalidOrigin", "dcApi.origins", `${o} is not a web origin.`);
        }
      }),
    ),
  ];
  return { origins, signed: options.signed };
}

/** The client_id of a DC API session: the verifier's (signed) or the first origin's `origin:` id (unsigned). */
export function dcApiClientId(channel: { origins: string[]; signed: boolean }, signedClientId: () => string) {
  return channel.signed ? signedClientId() : originClientId(channel.origins[0]!);
}

/**
 * The `{ protocol, data }` the page passes to navigator.credentials.get, signed with the verifier key when
 * asked: the session's common request parameters (`sessionRequestCommon`, as in its other requests)
 * without `state` or `response_uri` (Appendix A.2), `client_id` and `expected_origins` when signed.
 */
export function buildDcApiRequestFor(
  session: Pick<SessionRequestSource, "clientId" | "nonce" | "rules" | "transactionData" | "expiresAt">,
  input: {
    channel: { origins: string[]; signed: boolean };
    identity: VerifierIdentity;
    responseMode: DcApiResponseMode;
    dcqlQuery: DcqlQuery;
    encryptionJwk: Jwk | null;
    iat: number;
  },
): Promise<DcApiRequest> {
  const { channel } = input;
  const { iat, exp, ...common } = sessionRequestCommon(session, input);
  return createDcApiRequest(
    {
      ...common,
      responseMode: input.responseMode,
      ...(channel.signed
        ? { signed: { clientId: session.clientId, expectedOrigins: channel.origins, iat, exp } }
        : {}),
    },
    requestObjectSigner(input.identity, session.clientId),
  );
}
