import type { TCreateVerificationRequest } from "@cred/contracts/verification-sessions";
import {
  createDcApiRequest,
  createMultiSignedDcApiRequest,
  type DcApiRequest,
  type DcApiResponseMode,
  type DcqlQuery,
  DECENTRALIZED_IDENTIFIER_PREFIX,
  type Jwk,
  originClientId,
  REGISTRATION_CERTIFICATE_FORMAT,
  type VerifierInfo,
  webOrigin,
} from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { TPolicyRules } from "../verification-policies";
import { type SessionRequestSource, sessionRequestCommon } from "./session-request";
import { type ClientIdPrefix, requestObjectSigner, type VerifierIdentity } from "./verifier-identity";

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

/** How a DC API session's request is sent: its origins, signed or not, and the prefixes of a multi-signed one. */
export interface DcApiChannel {
  origins: string[];
  signed: boolean;
  /** `openid4vp-v1-multisigned`: one signature per prefix (two or more); null for one signature or none. */
  multiSigned: ClientIdPrefix[] | null;
}

/**
 * Checks a Verifications_Create `dcApi` against the policy (`dcApi`: `off`, `signed`, or
 * `signed_or_unsigned`, the default for policies stored before it) and normalises the origins. A
 * multi-signed request is a signed one (the policy's `signed` allows it); `clientIdPrefixes` with
 * `signed: false` → 400 `MultiSignedNeedsSigned`.
 */
export function dcApiChannel(
  rules: TPolicyRules,
  options: NonNullable<TCreateVerificationRequest["dcApi"]>,
): DcApiChannel {
  const allowed = rules.dcApi ?? "signed_or_unsigned";
  if (options.clientIdPrefixes && !options.signed) {
    throw invalid(
      "MultiSignedNeedsSigned",
      "dcApi.clientIdPrefixes",
      "clientIdPrefixes asks for a multi-signed request (openid4vp-v1-multisigned); it cannot be unsigned (signed: false).",
    );
  }
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
  return { origins, signed: options.signed, multiSigned: options.clientIdPrefixes ?? null };
}

/**
 * The client_id a DC API session keeps: the verifier's (signed), the first signature's (multi-signed) or
 * the first origin's `origin:` id (unsigned).
 */
export function dcApiClientId(
  channel: DcApiChannel,
  signedClientId: () => string,
  multiSignedClientIds: string[] | null,
) {
  if (multiSignedClientIds) return multiSignedClientIds[0]!;
  return channel.signed ? signedClientId() : originClientId(channel.origins[0]!);
}

/**
 * The `verifier_info` of one signature of a multi-signed request: the session's entries, except that a
 * registration certificate (WRPRC, which names the relying party by its X.509 access certificate) goes
 * only with the signatures of the X.509 client identifiers.
 */
function verifierInfoForSignature(verifierInfo: VerifierInfo[] | undefined, clientId: string) {
  if (!verifierInfo?.length) return {};
  const kept = clientId.startsWith(DECENTRALIZED_IDENTIFIER_PREFIX)
    ? verifierInfo.filter((info) => info.format !== REGISTRATION_CERTIFICATE_FORMAT)
    : verifierInfo;
  return kept.length ? { verifierInfo: kept } : {};
}

/**
 * The `{ protocol, data }` the page passes to navigator.credentials.get, signed with the verifier key when
 * asked: the session's common request parameters (`sessionRequestCommon`, as in its other requests)
 * without `state` or `response_uri` (Appendix A.2), `client_id` and `expected_origins` when signed.
 */
export function buildDcApiRequestFor(
  session: Pick<SessionRequestSource, "clientId" | "nonce" | "rules" | "transactionData" | "expiresAt">,
  input: {
    channel: DcApiChannel;
    identity: VerifierIdentity;
    /** The client ids of a multi-signed request, one signature each (`channel.multiSigned`). */
    multiSignedClientIds: string[] | null;
    responseMode: DcApiResponseMode;
    dcqlQuery: DcqlQuery;
    encryptionJwk: Jwk | null;
    iat: number;
  },
): Promise<DcApiRequest> {
  const { channel } = input;
  const { iat, exp, ...common } = sessionRequestCommon(session, input);
  if (input.multiSignedClientIds) {
    const { verifierInfo, ...shared } = common;
    return createMultiSignedDcApiRequest(
      { ...shared, responseMode: input.responseMode, expectedOrigins: channel.origins, iat, exp },
      input.multiSignedClientIds.map((clientId) => ({
        clientId,
        signer: requestObjectSigner(input.identity, clientId),
        ...verifierInfoForSignature(verifierInfo, clientId),
      })),
    );
  }
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
