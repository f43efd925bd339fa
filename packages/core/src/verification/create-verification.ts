import type { TCreateVerificationRequest, TVerificationSession } from "@cred/contracts/verification-sessions";
import type { UnitOfWork } from "@cred/db";
import {
  generateNonce,
  generateResponseEncryptionKey,
  generateState,
  publicJwk,
  redirectUriClientId,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import { getActivePolicyForVerification } from "../verification-policies";
import { buildDcApiRequestFor, dcApiChannel, dcApiClientId, dcApiResponseMode } from "./dc-api";
import { dcqlQueryFor, walletDcqlQueryFor } from "./policy-query";
import { assertWithinRegistrations, registrationsFor, rulesWithRegistrations } from "./registration-limits";
import { signedRequestByValue } from "./request-by-value";
import { encodeTransactionData } from "./transaction-data";
import { type VerificationSessionRow, verificationRepository } from "./verification-repository";
import {
  encryptionKeySealContext,
  responseUriOf,
  sessionEventData,
  toVerificationSessionDto,
} from "./verification-session-dto";
import { clientIdFor, type VerifierIdentity } from "./verifier-identity";

/**
 * Starts a verification under a server-managed policy: a pending session with a fresh nonce and state,
 * the client_id of the tenant's verifier certificate (generated on first use) with the policy's prefix
 * (`x509_hash` by default, `x509_san_dns` when the certificate names the public host; else 409) and, for
 * `direct_post.jwt`, a fresh ECDH-ES P-256 key (sealed). The request object itself is built and signed
 * when the wallet fetches `requestUri`. `identity` is read by the caller before any Idempotency-Key
 * transaction opens: on the embedded database that transaction holds the one session, so a read of
 * the identity through the global connection inside it would wait for the transaction's own timeout.
 * With `dcApi`, the session is for the Digital Credentials API (OpenID4VP Appendix A): response mode
 * `dc_api(.jwt)`, client_id `origin:<first origin>` when unsigned, and the `{ protocol, data }` request
 * built (and signed) now, kept with the session and shown as `dcApiRequest`.
 */
export async function createVerification(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TCreateVerificationRequest,
  identity: VerifierIdentity,
): Promise<TVerificationSession> {
  const { row: policy, rules: policyRules } = await getActivePolicyForVerification(
    deps,
    db,
    scope,
    input.policy,
  );
  const dcqlQuery = dcqlQueryFor(deps, policyRules); // refuse a policy that cannot become a query now
  const registrations = await registrationsFor(db, scope, policyRules, identity);
  assertWithinRegistrations(identity, registrations, dcqlQuery);
  // The registration certificates travel in verifier_info with the policy's own entries.
  const rules = rulesWithRegistrations(policyRules, registrations);
  const transactionData = input.transactionData ? encodeTransactionData(input.transactionData, rules) : null;
  const dcApi = input.dcApi ? dcApiChannel(rules, input.dcApi) : null;
  // Policies stored before `clientIdPrefix` existed use the default.
  const prefix = rules.clientIdPrefix ?? "x509_hash";
  const state = generateState();
  const verifierClientId = () => {
    if (prefix !== "redirect_uri")
      return clientIdFor(identity, prefix, deps.config, rules.didMethod ?? "jwk");
    // OpenID4VP §5.9.3: requests of this prefix cannot be signed, so the DC API's signed protocol is out.
    if (dcApi) {
      throw new DomainError(
        "ValidationFailed",
        "The policy's redirect_uri client identifier cannot sign a Digital Credentials API request; ask for an unsigned one (dcApi.signed: false).",
        [
          {
            code: "SignedRequestNeedsCertificate",
            target: "dcApi.signed",
            message: "redirect_uri requests are unsigned (OpenID4VP §5.9.3).",
          },
        ],
      );
    }
    return redirectUriClientId(responseUriOf(deps.config, state));
  };
  // A multi-signed DC API request signs under each prefix asked for (409 for an x509_san_dns the
  // certificate cannot serve); a policy whose prefix is redirect_uri does not sign at all.
  let multiSignedClientIds: string[] | null = null;
  if (dcApi?.multiSigned) {
    if (prefix === "redirect_uri") verifierClientId(); // throws SignedRequestNeedsCertificate
    multiSignedClientIds = dcApi.multiSigned.map((p) =>
      clientIdFor(identity, p, deps.config, rules.didMethod ?? "jwk"),
    );
  }
  const clientId = dcApi ? dcApiClientId(dcApi, verifierClientId, multiSignedClientIds) : verifierClientId();
  const responseMode = dcApi ? dcApiResponseMode(rules) : rules.responseMode;
  const id = newId("vs");
  const now = Date.now();
  const encryptionKey = responseMode.endsWith(".jwt") ? generateResponseEncryptionKey().privateJwk : null;
  const expiresAt = new Date(now + rules.sessionLifetimeSeconds * 1000);
  const nonce = generateNonce();
  // What every request of this session is built from (`sessionRequestPayload`, `buildDcApiRequestFor`).
  const session = { clientId, state, nonce, rules, transactionData, expiresAt };
  const encryptionJwk = encryptionKey ? publicJwk(encryptionKey) : null;
  const iat = Math.floor(now / 1000);
  const dcApiRequest = dcApi
    ? await buildDcApiRequestFor(session, {
        channel: dcApi,
        identity,
        multiSignedClientIds,
        responseMode: dcApiResponseMode(rules),
        dcqlQuery: await walletDcqlQueryFor(deps, scope, rules),
        encryptionJwk,
        iat,
      })
    : null;
  if (input.requestByValue && (dcApi || prefix === "redirect_uri")) {
    throw new DomainError(
      "ValidationFailed",
      dcApi
        ? "requestByValue is for request links: a Digital Credentials API request is passed to the page already."
        : "The policy's redirect_uri requests are always passed by value, unsigned: leave requestByValue out.",
      [
        {
          code: "RequestByValueNotApplicable",
          target: "requestByValue",
          message: "requestByValue applies to signed request links only.",
        },
      ],
    );
  }
  const requestObject = input.requestByValue
    ? await signedRequestByValue(
        deps,
        scope,
        { ...session, responseMode: rules.responseMode, responseUri: responseUriOf(deps.config, state) },
        { identity, encryptionJwk, iat },
      )
    : null;
  const createdAt = new Date(now);
  const row: VerificationSessionRow = {
    id,
    ...scope,
    policyId: policy.id,
    policyIdentifier: policy.identifier,
    relyingPartyId: rules.relyingPartyId ?? null,
    purpose: input.purpose ?? policy.purpose,
    status: "pending",
    rules: rules as object,
    state,
    nonce,
    clientId,
    responseMode,
    invocation: input.invocation ?? "openid",
    transactionData,
    dcApi: dcApi && dcApiRequest ? ({ origins: dcApi.origins, request: dcApiRequest } as object) : null,
    requestObject,
    encryptionKeyCipher: encryptionKey
      ? deps.secretBox.seal(JSON.stringify(encryptionKey), encryptionKeySealContext(id))
      : null,
    responseCodeHash: null,
    resultCipher: null,
    reasonCodes: [],
    decidedAt: null,
    expiresAt,
    createdAt,
    updatedAt: createdAt,
  };
  await verificationRepository.insertSessionWithEvent(db, deps.caches, row, {
    scope,
    type: "verification.session.created",
    data: sessionEventData(row, "pending"),
  });
  return toVerificationSessionDto(deps, row);
}
