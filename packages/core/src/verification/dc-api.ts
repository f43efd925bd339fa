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

/** The `{ protocol, data }` the page passes to navigator.credentials.get, signed with the verifier key when asked. */
export function buildDcApiRequestFor(input: {
  channel: { origins: string[]; signed: boolean };
  identity: VerifierIdentity;
  clientId: string;
  responseMode: DcApiResponseMode;
  nonce: string;
  dcqlQuery: DcqlQuery;
  encryptionJwk: Jwk | null;
  transactionData: string[] | null;
  verifierInfo: NonNullable<TPolicyRules["verifierInfo"]> | null | undefined;
  iat: number;
  exp: number;
}): Promise<DcApiRequest> {
  const { channel } = input;
  return createDcApiRequest(
    {
      responseMode: input.responseMode,
      nonce: input.nonce,
      dcqlQuery: input.dcqlQuery,
      ...(input.encryptionJwk ? { encryptionJwk: input.encryptionJwk } : {}),
      ...(input.transactionData ? { transactionData: input.transactionData } : {}),
      ...(input.verifierInfo?.length
        ? {
            verifierInfo: input.verifierInfo.map(({ format, data, credentialIds }) => ({
              format,
              data,
              ...(credentialIds ? { credential_ids: credentialIds } : {}),
            })),
          }
        : {}),
      ...(channel.signed
        ? {
            signed: {
              clientId: input.clientId,
              expectedOrigins: channel.origins,
              iat: input.iat,
              exp: Math.max(input.iat + 1, input.exp),
            },
          }
        : {}),
    },
    requestObjectSigner(input.identity, input.clientId),
  );
}
