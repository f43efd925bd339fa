import { isEs256Signer, type JwsHeader, signEs256Jwt } from "../jose/jws";
import { type Jwk, toPrivateKey } from "../jose/key-input";
import {
  authorizationResponseFromParameters,
  type ParsedAuthorizationResponse,
} from "./authorization-response";
import { VpError } from "./errors";
import { URL_SAFE_VALUE } from "./random";
import {
  encryptionJwks,
  InvalidAuthorizationRequestError,
  REQUEST_OBJECT_TYP,
  type RequestObjectSigner,
  SELF_ISSUED_AUDIENCE,
  signRequestObject,
  type VerifierClientMetadata,
  type VerifierInfo,
  verifierCapabilities,
} from "./request-object";
import { type JweHeader, readJweHeader } from "./response-encryption";
import type { DcqlQuery } from "./z-dcql";

/**
 * OpenID4VP over the W3C Digital Credentials API (OpenID4VP 1.0 Appendix A): the exchange runs through
 * `navigator.credentials.get({ digital: { requests: [{ protocol, data }] } })`; the response comes back to
 * the page that asked, so there is no `response_uri`, `state` or `request_uri`.
 */
export const DC_API_PROTOCOL_UNSIGNED = "openid4vp-v1-unsigned";
export const DC_API_PROTOCOL_SIGNED = "openid4vp-v1-signed";
/** A.3.2 JWS JSON Serialization: one payload, one signature per client identifier. */
export const DC_API_PROTOCOL_MULTISIGNED = "openid4vp-v1-multisigned";
export type DcApiProtocol =
  | typeof DC_API_PROTOCOL_UNSIGNED
  | typeof DC_API_PROTOCOL_SIGNED
  | typeof DC_API_PROTOCOL_MULTISIGNED;
export type DcApiResponseMode = "dc_api" | "dc_api.jwt";

/** Client identifier prefix of unsigned DC API requests (A.2): the wallet uses `origin:<origin>`. */
export const ORIGIN_CLIENT_ID_PREFIX = "origin:";

/** The client identifier (and so the KB-JWT `aud`) a wallet uses for an unsigned request from `origin`. */
export function originClientId(origin: string): string {
  return `${ORIGIN_CLIENT_ID_PREFIX}${origin}`;
}

/**
 * Normalises a web origin (`https://shop.example` or `http://localhost:3000`, no path, query or fragment)
 * to its serialisation; anything else → `InvalidAuthorizationRequestError`.
 */
export function webOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidAuthorizationRequestError(`${value} is not an origin`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new InvalidAuthorizationRequestError(`${value} is not an http(s) origin`);
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password || value.endsWith("/"))
    throw new InvalidAuthorizationRequestError(`${value} is not an origin (scheme, host and port only)`);
  return url.origin;
}

/** The request parameters of Appendix A.2 (the unsigned `data`, or the signed request object's payload). */
export interface DcApiRequestPayload {
  response_type: "vp_token";
  response_mode: DcApiResponseMode;
  nonce: string;
  dcql_query: DcqlQuery;
  client_metadata: VerifierClientMetadata;
  transaction_data?: string[];
  verifier_info?: VerifierInfo[];
  /** Signed requests only (A.3.2). */
  client_id?: string;
  expected_origins?: string[];
  aud?: string;
  iat?: number;
  exp?: number;
}

export interface BuildDcApiRequestInput {
  responseMode: DcApiResponseMode;
  nonce: string;
  dcqlQuery: DcqlQuery;
  /** The per-request public encryption key; required for `dc_api.jwt`. */
  encryptionJwk?: Jwk;
  transactionData?: string[];
  verifierInfo?: VerifierInfo[];
  /**
   * For `openid4vp-v1-signed`: the verifier's prefixed client_id, the origins allowed to pass the request
   * to the browser (`expected_origins`, which the wallet compares with the caller's origin) and the
   * validity of the request object (seconds since the epoch). Without it the request is unsigned and
   * carries no `client_id` (A.2).
   */
  signed?: { clientId: string; expectedOrigins: readonly string[]; iat: number; exp: number };
}

/** Builds the Appendix A.2 request parameters (pure). */
export function buildDcApiRequest(input: BuildDcApiRequestInput): DcApiRequestPayload {
  const fail = (message: string): never => {
    throw new InvalidAuthorizationRequestError(message);
  };
  if (input.responseMode !== "dc_api" && input.responseMode !== "dc_api.jwt")
    fail(`unsupported DC API response mode ${String(input.responseMode)}`);
  if (!URL_SAFE_VALUE.test(input.nonce) || input.nonce.length < 22)
    fail("nonce must be ≥128 bits of URL-safe characters");
  const client_metadata = verifierCapabilities(input.responseMode);
  if (input.responseMode === "dc_api.jwt") {
    client_metadata.jwks = encryptionJwks(
      input.encryptionJwk ?? fail("dc_api.jwt requires an encryption key"),
    );
  }
  const payload: DcApiRequestPayload = {
    response_type: "vp_token",
    response_mode: input.responseMode,
    nonce: input.nonce,
    dcql_query: input.dcqlQuery,
    client_metadata,
  };
  if (input.transactionData?.length) payload.transaction_data = [...input.transactionData];
  if (input.verifierInfo?.length) payload.verifier_info = input.verifierInfo.map((info) => ({ ...info }));
  if (input.signed) {
    const { clientId, expectedOrigins, iat, exp } = input.signed;
    if (!clientId.includes(":")) fail("clientId must carry its client identifier prefix");
    if (clientId.startsWith(ORIGIN_CLIENT_ID_PREFIX)) fail("the origin: prefix is reserved to the wallet");
    if (expectedOrigins.length === 0) fail("a signed request needs expected_origins");
    if (!(exp > iat)) fail("exp must be after iat");
    Object.assign(payload, {
      client_id: clientId,
      expected_origins: expectedOrigins.map(webOrigin),
      aud: SELF_ISSUED_AUDIENCE,
      iat,
      exp,
    });
  }
  return payload;
}

/** A JWS in the General JWS JSON Serialization (RFC 7515 §7.2.1), without unprotected headers. */
export interface GeneralJws {
  payload: string;
  signatures: { protected: string; signature: string }[];
}

/** What the page passes to `navigator.credentials.get({ digital: { requests: [this] } })`. */
export type DcApiRequest =
  | { protocol: typeof DC_API_PROTOCOL_UNSIGNED; data: DcApiRequestPayload }
  | { protocol: typeof DC_API_PROTOCOL_SIGNED; data: { request: string } }
  | { protocol: typeof DC_API_PROTOCOL_MULTISIGNED; data: { request: GeneralJws } };

/**
 * The DC API request for `input`: unsigned, the parameters themselves; signed, `{ request }` with the
 * request object signed like the request_uri one (`typ: oauth-authz-req+jwt`, `x5c`).
 */
export async function createDcApiRequest(
  input: BuildDcApiRequestInput,
  signer?: RequestObjectSigner,
): Promise<DcApiRequest> {
  const payload = buildDcApiRequest(input);
  if (!input.signed) return { protocol: DC_API_PROTOCOL_UNSIGNED, data: payload };
  if (!signer) throw new InvalidAuthorizationRequestError("a signed request needs the verifier's key");
  return {
    protocol: DC_API_PROTOCOL_SIGNED,
    data: { request: await signRequestObject({ ...payload }, signer) },
  };
}

/** One signature of a multi-signed request: the client identifier it authenticates, its key and `verifier_info`. */
export interface DcApiRequestSignature {
  /** The prefixed client_id (not `origin:`), e.g. `x509_hash:…` or `decentralized_identifier:did:…`. */
  clientId: string;
  signer: RequestObjectSigner;
  /** `verifier_info` for this client identifier (A.3.2: it travels in this signature's protected header). */
  verifierInfo?: VerifierInfo[];
}

/**
 * The `openid4vp-v1-multisigned` request (OpenID4VP 1.0 Appendix A.3.2, JWS JSON Serialization): one
 * payload with every request parameter except `client_id` and `verifier_info`, which the spec allows only
 * in the protected header of each `signatures` entry, so that a wallet in any of the verifier's trust
 * frameworks authenticates it by the client identifier it knows. Each protected header is
 * `{ alg: "ES256", typ: "oauth-authz-req+jwt", x5c | kid, client_id, verifier_info? }`; the payload also
 * carries `expected_origins`, `aud`, `iat` and `exp` as the single-signed request does. `data` is
 * `{ request: <the General JWS JSON object> }`, as `{ request }` holds the compact JWS of `-signed`.
 * Needs at least two signatures with distinct client identifiers (one is `openid4vp-v1-signed`, which
 * A.3.2 recommends).
 */
export async function createMultiSignedDcApiRequest(
  input: Omit<BuildDcApiRequestInput, "signed" | "verifierInfo"> & {
    expectedOrigins: readonly string[];
    iat: number;
    exp: number;
  },
  signatures: readonly DcApiRequestSignature[],
): Promise<DcApiRequest> {
  if (signatures.length < 2)
    throw new InvalidAuthorizationRequestError("a multi-signed request needs at least two signatures");
  const clientIds = signatures.map((s) => s.clientId);
  if (new Set(clientIds).size !== clientIds.length)
    throw new InvalidAuthorizationRequestError("each signature must name its own client_id");
  const { expectedOrigins, iat, exp, ...rest } = input;
  const checked = clientIds.map((clientId) =>
    buildDcApiRequest({ ...rest, signed: { clientId, expectedOrigins, iat, exp } }),
  );
  const { client_id: _clientId, verifier_info: _verifierInfo, ...payload } = checked[0]!;
  const parts = await Promise.all(
    signatures.map(async ({ clientId, signer, verifierInfo }) => {
      const header: JwsHeader = {
        alg: "ES256",
        typ: REQUEST_OBJECT_TYP,
        ...("kid" in signer ? { kid: signer.kid } : { x5c: [...signer.x5c] }),
        client_id: clientId,
        ...(verifierInfo?.length ? { verifier_info: verifierInfo.map((info) => ({ ...info })) } : {}),
      };
      if ("kid" in signer && !signer.kid)
        throw new InvalidAuthorizationRequestError("kid must name the signing key");
      if (!("kid" in signer) && signer.x5c.length === 0)
        throw new InvalidAuthorizationRequestError("x5c must hold at least the leaf");
      // A key in the process, or a signer holding its key elsewhere (an HSM).
      const key = isEs256Signer(signer.privateKey) ? signer.privateKey : toPrivateKey(signer.privateKey);
      return (await signEs256Jwt(header, payload, key)).split(".");
    }),
  );
  return {
    protocol: DC_API_PROTOCOL_MULTISIGNED,
    data: {
      request: {
        payload: parts[0]![1]!,
        signatures: parts.map(([protectedHeader, , signature]) => ({
          protected: protectedHeader!,
          signature: signature!,
        })),
      },
    },
  };
}

export interface ParseDcApiResponseOptions {
  responseMode: DcApiResponseMode;
  /** Decrypts the `response` JWE of `dc_api.jwt` with the request's key (throws `VpError` on failure). */
  decrypt: (jwe: string, header: JweHeader) => Promise<Record<string, unknown>>;
}

/**
 * Parses the `data` of the DigitalCredential a page received (A.4): `{ vp_token }` for `dc_api`,
 * `{ response }` (a JWE with the same parameters inside) for `dc_api.jwt`, or a wallet error
 * (`{ error, error_description }`, accepted unencrypted in either mode, as in §8.3.1). A `dc_api.jwt`
 * session refuses an unencrypted `vp_token`, a `dc_api` one a JWE. Malformed → `VpError` `invalid_request`.
 */
export async function parseDcApiResponse(
  data: unknown,
  options: ParseDcApiResponseOptions,
): Promise<ParsedAuthorizationResponse> {
  if (typeof data === "string") {
    try {
      data = JSON.parse(data);
    } catch {
      throw new VpError("invalid_request", "the response data is not JSON");
    }
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new VpError("invalid_request", "the response data must be an object");
  const params = data as Record<string, unknown>;
  if (params.response !== undefined) {
    if (options.responseMode !== "dc_api.jwt")
      throw new VpError("invalid_request", "an encrypted response was not requested (dc_api)");
    if (typeof params.response !== "string")
      throw new VpError("invalid_request", "response must be a compact JWE");
    const header = readJweHeader(params.response);
    const payload = await options.decrypt(params.response, header);
    let vpToken = payload.vp_token;
    if (typeof vpToken === "string") {
      try {
        vpToken = JSON.parse(vpToken);
      } catch {
        throw new VpError("invalid_request", "vp_token is not valid JSON");
      }
    }
    return authorizationResponseFromParameters(
      vpToken === undefined ? payload : { ...payload, vp_token: vpToken },
      true,
    );
  }
  if (params.error !== undefined) return authorizationResponseFromParameters(params, false);
  if (params.vp_token === undefined) throw new VpError("invalid_request", "vp_token or response is missing");
  if (options.responseMode === "dc_api.jwt")
    throw new VpError("invalid_request", "the response must be encrypted (dc_api.jwt)");
  return authorizationResponseFromParameters(params, false);
}
