import { type Es256Signer, isEs256Signer, signEs256Jwt } from "../jose/jws";
import { type Jwk, type KeyInput, toPrivateKey } from "../jose/key-input";
import { URL_SAFE_VALUE } from "./random";
import type { DcqlQuery } from "./z-dcql";

export { generateNonce, generateResponseCode, generateState } from "./random";

export type ResponseMode = "direct_post" | "direct_post.jwt";

/** `aud` of a request object under static discovery (OpenID4VP §5.8). */
export const SELF_ISSUED_AUDIENCE = "https://self-issued.me/v2";
export const REQUEST_OBJECT_TYP = "oauth-authz-req+jwt";
/** Content-Type of the request_uri response (§5.10.1). */
export const REQUEST_OBJECT_CONTENT_TYPE = "application/oauth-authz-req+jwt";
/** One `verifier_info` entry (OpenID4VP §5.1): an attestation about the verifier. */
export interface VerifierInfo {
  format: string;
  data: string | Record<string, unknown>;
  credential_ids?: string[];
}

/** HAIP: verifiers support both and list both. */
export const SUPPORTED_RESPONSE_ENC_VALUES = ["A128GCM", "A256GCM"] as const;
export type ResponseEncValue = (typeof SUPPORTED_RESPONSE_ENC_VALUES)[number];

export const SD_JWT_VC_VP_FORMATS = {
  "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"] },
} as const;

export interface VerifierClientMetadata {
  vp_formats_supported: Record<string, Record<string, string[]>>;
  jwks?: { keys: Jwk[] };
  encrypted_response_enc_values_supported?: string[];
}

export interface AuthorizationRequestPayload {
  response_type: "vp_token";
  response_mode: ResponseMode;
  client_id: string;
  response_uri: string;
  nonce: string;
  state: string;
  dcql_query: DcqlQuery;
  client_metadata: VerifierClientMetadata;
  aud: string;
  iat: number;
  exp: number;
  wallet_nonce?: string;
  transaction_data?: string[];
  verifier_info?: VerifierInfo[];
}

export interface BuildAuthorizationRequestInput {
  /** Full prefixed client id, e.g. `x509_hash:…` or `x509_san_dns:verifier.example`. */
  clientId: string;
  responseUri: string;
  responseMode: ResponseMode;
  nonce: string;
  state: string;
  dcqlQuery: DcqlQuery;
  /** The per-request public encryption key (`kid`, `alg: ECDH-ES`, `use: enc`); required for `.jwt`. */
  encryptionJwk?: Jwk;
  /** `wallet_nonce` from a `request_uri_method=post` request (§5.10), echoed in the object. */
  walletNonce?: string;
  /**
   * `wallet_metadata.issuer` from a `request_uri_method=post` request: with the wallet's metadata the
   * request is dynamically discovered, so `aud` is that issuer (§5.8); otherwise the static value.
   */
  walletIssuer?: string;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
  /** `transaction_data` (§5.1): base64url-encoded JSON objects, each with `type` and `credential_ids`. */
  transactionData?: string[];
  /** `verifier_info` (§5.1): attestations about the verifier, passed to the wallet as given. */
  verifierInfo?: VerifierInfo[];
}

export class InvalidAuthorizationRequestError extends Error {
  override readonly name = "InvalidAuthorizationRequestError";
}

/** Builds the Request Object payload (OpenID4VP §5, HAIP verifier profile). Pure. */
export function buildAuthorizationRequest(
  input: BuildAuthorizationRequestInput,
): AuthorizationRequestPayload {
  const fail = (message: string): never => {
    throw new InvalidAuthorizationRequestError(message);
  };
  if (!URL_SAFE_VALUE.test(input.nonce) || input.nonce.length < 22) {
    fail("nonce must be ≥128 bits of URL-safe characters");
  }
  if (!URL_SAFE_VALUE.test(input.state)) fail("state must contain URL-safe characters only");
  if (!input.clientId.includes(":")) fail("clientId must carry its client identifier prefix");
  let responseUri: URL | undefined;
  try {
    responseUri = new URL(input.responseUri);
  } catch {
    fail("responseUri must be an absolute URL");
  }
  if (responseUri && responseUri.protocol !== "https:" && responseUri.protocol !== "http:") {
    fail("responseUri must be an http(s) URL");
  }
  if (!(input.exp > input.iat)) fail("exp must be after iat");

  if (input.responseMode !== "direct_post.jwt" && input.responseMode !== "direct_post") {
    fail(`unsupported response mode ${String(input.responseMode)}`);
  }
  const client_metadata: VerifierClientMetadata = verifierCapabilities(input.responseMode);
  if (input.responseMode === "direct_post.jwt") {
    client_metadata.jwks = encryptionJwks(
      input.encryptionJwk ?? fail("direct_post.jwt requires an encryption key"),
    );
  }

  const payload: AuthorizationRequestPayload = {
    response_type: "vp_token",
    response_mode: input.responseMode,
    client_id: input.clientId,
    response_uri: input.responseUri,
    nonce: input.nonce,
    state: input.state,
    dcql_query: input.dcqlQuery,
    client_metadata,
    aud: input.walletIssuer ?? SELF_ISSUED_AUDIENCE,
    iat: input.iat,
    exp: input.exp,
  };
  if (input.walletNonce !== undefined) payload.wallet_nonce = input.walletNonce;
  if (input.transactionData?.length) payload.transaction_data = [...input.transactionData];
  if (input.verifierInfo?.length) payload.verifier_info = input.verifierInfo.map((info) => ({ ...info }));
  return payload;
}

/**
 * Who signs a request object and how wallets find the key: an `x5c` chain (the x509 prefixes), or a
 * `kid` naming a verification method of the verifier's DID (`decentralized_identifier`, §5.9.3).
 */
export type RequestObjectSigner =
  | { privateKey: KeyInput | Es256Signer; x5c: readonly string[] }
  | { privateKey: KeyInput | Es256Signer; kid: string };

/** A key in the process (imported once, cached), or a signer holding its key elsewhere (an HSM). */
const signingKeyOf = (key: KeyInput | Es256Signer) => (isEs256Signer(key) ? key : toPrivateKey(key));

/**
 * Signs a Request Object: JWS compact, header `{ alg: "ES256", typ: "oauth-authz-req+jwt", x5c }`
 * (`x5c` the verifier chain without the trust anchor, leaf first) or `{ …, kid }` (a DID URL). The
 * private key import is cached.
 */
export async function signRequestObject(
  payload: AuthorizationRequestPayload | Record<string, unknown>,
  options: RequestObjectSigner,
): Promise<string> {
  if ("kid" in options) {
    if (!options.kid) throw new InvalidAuthorizationRequestError("kid must name the signing key");
    return signEs256Jwt(
      { alg: "ES256", typ: REQUEST_OBJECT_TYP, kid: options.kid },
      payload,
      signingKeyOf(options.privateKey),
    );
  }
  if (options.x5c.length === 0) throw new InvalidAuthorizationRequestError("x5c must hold at least the leaf");
  return signEs256Jwt(
    { alg: "ES256", typ: REQUEST_OBJECT_TYP, x5c: [...options.x5c] },
    payload,
    signingKeyOf(options.privateKey),
  );
}

/**
 * What the verifier takes, as `client_metadata` states it: the formats and, for an encrypted response mode
 * (`direct_post.jwt`, `dc_api.jwt`), the `enc` values.
 */
export function verifierCapabilities(responseMode: string): VerifierClientMetadata {
  return {
    vp_formats_supported: {
      "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"] },
    },
    ...(responseMode.endsWith(".jwt")
      ? { encrypted_response_enc_values_supported: [...SUPPORTED_RESPONSE_ENC_VALUES] }
      : {}),
  };
}

/** `client_metadata.jwks` for an encrypted response: the per-request public ECDH-ES key, `use: enc`. */
export function encryptionJwks(jwk: Jwk): { keys: Jwk[] } {
  const fail = (message: string): never => {
    throw new InvalidAuthorizationRequestError(message);
  };
  if ("d" in jwk) fail("encryptionJwk must be the public key");
  if (!jwk.kid) fail("encryptionJwk needs a kid");
  if (jwk.alg !== "ECDH-ES") fail("encryptionJwk.alg must be ECDH-ES");
  return { keys: [{ ...jwk, use: "enc" }] };
}

/**
 * The link a QR code or button carries: `openid4vp://?client_id=…&request_uri=…[&request_uri_method=post]`.
 * `scheme` may also be a wallet's https universal link (`https://wallet.example/authorize`).
 */
export function authorizationRequestLink(input: {
  clientId: string;
  requestUri: string;
  requestUriMethod?: "get" | "post";
  /**
   * With `requestUriMethod: "post"`: the verifier's capabilities for the wallet's `wallet_metadata`
   * (§5.1: it "SHOULD add the client_metadata parameter"), without keys (those are in the request object).
   */
  responseMode?: ResponseMode;
  scheme?: string;
}): string {
  const params = new URLSearchParams({ client_id: input.clientId, request_uri: input.requestUri });
  if (input.requestUriMethod) params.set("request_uri_method", input.requestUriMethod);
  if (input.requestUriMethod === "post" && input.responseMode) {
    params.set("client_metadata", JSON.stringify(verifierCapabilities(input.responseMode)));
  }
  const scheme = input.scheme ?? "openid4vp://";
  if (scheme.endsWith("://")) return `${scheme}?${params.toString()}`;
  const url = new URL(scheme);
  for (const [k, v] of params) url.searchParams.set(k, v);
  return url.toString();
}

const WALLET_NONCE_MAX_LENGTH = 2048;

/**
 * Parses a `request_uri_method=post` form body (§5.10.1): `wallet_nonce` (1–2048 characters) and
 * `wallet_metadata` (a JSON object); either malformed → `InvalidAuthorizationRequestError`.
 */
export function parseRequestUriPostBody(form: URLSearchParams | Record<string, string | undefined>): {
  walletNonce?: string;
  walletMetadata?: Record<string, unknown>;
  /** `wallet_metadata.issuer`, when the wallet names one (the request object's `aud`, §5.8). */
  walletIssuer?: string;
} {
  const get = (name: string) =>
    form instanceof URLSearchParams ? (form.get(name) ?? undefined) : form[name];
  const out: ReturnType<typeof parseRequestUriPostBody> = {};
  const walletNonce = get("wallet_nonce");
  if (walletNonce !== undefined) {
    // §5.10 only suggests base64url ("can be"), and wallets send standard base64 (the EUDI reference
    // wallet's has "/" and "="); it is echoed as a JSON string, so any characters will do.
    if (walletNonce.length === 0 || walletNonce.length > WALLET_NONCE_MAX_LENGTH) {
      throw new InvalidAuthorizationRequestError(
        `wallet_nonce must have 1 to ${WALLET_NONCE_MAX_LENGTH} characters`,
      );
    }
    out.walletNonce = walletNonce;
  }
  const walletMetadata = get("wallet_metadata");
  if (walletMetadata !== undefined) {
    // §5.10.1: "a String containing a JSON object"; anything else is a malformed request.
    let parsed: unknown;
    try {
      parsed = JSON.parse(walletMetadata);
    } catch {
      throw new InvalidAuthorizationRequestError("wallet_metadata must be a JSON object; it is not JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new InvalidAuthorizationRequestError("wallet_metadata must be a JSON object");
    }
    out.walletMetadata = parsed as Record<string, unknown>;
    const issuer = out.walletMetadata.issuer;
    if (typeof issuer === "string" && issuer.length > 0 && issuer.length <= WALLET_NONCE_MAX_LENGTH)
      out.walletIssuer = issuer;
  }
  return out;
}
