import { base64url, CompactEncrypt, importJWK, type JWK } from "jose";
import type { DcqlQuery } from "./dcql";
import { asObject, send, WalletError } from "./http";
import { type RequestDelivery, readRequestLink } from "./request-link";
import { type ClaimPath, presentCredential } from "./sd-jwt";
import { getKey, type StoredCredential } from "./store";
import { checkVerifier, type VerifierIdentity } from "./verifier-check";

/** `aud` of a request object under static discovery (OpenID4VP §5.8). */
const SELF_ISSUED_AUDIENCE = "https://self-issued.me/v2";

export interface VerifiedRequest {
  clientId: string;
  payload: Record<string, unknown>;
  dcql: DcqlQuery;
  responseMode: "direct_post" | "direct_post.jwt";
  responseUri: string;
  nonce: string;
  /** How the link handed the request over. */
  delivery: RequestDelivery;
  /** The verifier as far as the wallet could check it (certificate, DID, or only its redirect URI). */
  verifier: VerifierIdentity;
  /** Decoded `transaction_data` items with their encoded form (hashed into the KB-JWT). */
  transactionData: {
    encoded: string;
    type: string;
    credentialIds: string[];
    item: Record<string, unknown>;
  }[];
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/**
 * Reads and checks an OpenID4VP 1.0 authorization request as a wallet does: the request from the link
 * (`request_uri` GET or POST, `request` by value, or the plain parameters), the verifier by its client
 * identifier prefix (checkVerifier: `x509_hash` / `x509_san_dns` certificate, `decentralized_identifier`
 * did:jwk, unsigned `redirect_uri`), then `aud`, `exp`, the `wallet_nonce` echo, the response mode and
 * what the answer needs (`response_uri`, `nonce`, `dcql_query`, `transaction_data`).
 */
export async function loadPresentationRequest(linkText: string): Promise<VerifiedRequest> {
  const linked = await readRequestLink(linkText);
  const { payload, verifier } = await checkVerifier(linked);
  const fail = (message: string): never => {
    throw new WalletError(`The request is not valid: ${message}.`);
  };

  const aud = payload.aud;
  if (aud !== undefined && aud !== SELF_ISSUED_AUDIENCE) fail(`aud must be ${SELF_ISSUED_AUDIENCE}`);
  if (typeof payload.exp === "number" && payload.exp * 1000 < Date.now()) fail("the request has expired");
  if (linked.walletNonce !== undefined && payload.wallet_nonce !== linked.walletNonce) {
    fail("wallet_nonce is not echoed");
  }
  if (payload.response_type !== "vp_token") fail("response_type must be vp_token");
  const responseMode = payload.response_mode;
  if (responseMode !== "direct_post" && responseMode !== "direct_post.jwt") {
    fail(`response_mode ${String(responseMode)} is not supported (direct_post, direct_post.jwt)`);
  }
  if (payload.redirect_uri !== undefined)
    fail(`redirect_uri must not be present with ${String(responseMode)}`);
  if (typeof payload.response_uri !== "string") fail("response_uri is missing");
  if (typeof payload.nonce !== "string") fail("nonce is missing");
  const dcql = asObject(payload.dcql_query);
  if (!Array.isArray(dcql.credentials)) fail("dcql_query is missing");

  const transactionData = (Array.isArray(payload.transaction_data) ? payload.transaction_data : []).map(
    (encoded) => {
      let item: Record<string, unknown> = {};
      try {
        item = asObject(JSON.parse(new TextDecoder().decode(base64url.decode(String(encoded)))));
      } catch {
        fail("transaction_data is not base64url JSON");
      }
      return {
        encoded: String(encoded),
        type: String(item.type ?? ""),
        credentialIds: Array.isArray(item.credential_ids) ? item.credential_ids.map(String) : [],
        item,
      };
    },
  );

  return {
    clientId: linked.clientId,
    payload,
    dcql: dcql as unknown as DcqlQuery,
    responseMode: responseMode as VerifiedRequest["responseMode"],
    responseUri: payload.response_uri as string,
    nonce: payload.nonce as string,
    delivery: linked.delivery,
    verifier,
    transactionData,
  };
}

export interface Disclosure {
  queryId: string;
  credential: StoredCredential;
  claims: Record<string, unknown>;
  paths: ClaimPath[];
}

export interface PresentationOutcome {
  status: number;
  body: unknown;
  redirectUri?: string;
}

/** Encrypts the response parameters to the verifier's key in `client_metadata.jwks` (ECDH-ES, §8.3). */
async function encryptResponse(request: VerifiedRequest, params: Record<string, unknown>): Promise<string> {
  const metadata = asObject(request.payload.client_metadata);
  const keys = Array.isArray(asObject(metadata.jwks).keys) ? (asObject(metadata.jwks).keys as JWK[]) : [];
  const key = keys.find(
    (k) => (k.alg === undefined || k.alg === "ECDH-ES") && (k.use === undefined || k.use === "enc"),
  );
  if (!key)
    throw new WalletError("direct_post.jwt asks for encryption, but client_metadata has no ECDH-ES key.");
  const encValues = metadata.encrypted_response_enc_values_supported;
  const enc = Array.isArray(encValues) && typeof encValues[0] === "string" ? encValues[0] : "A128GCM";
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(params)))
    .setProtectedHeader({ alg: "ECDH-ES", enc, ...(key.kid ? { kid: key.kid } : {}) })
    .encrypt(await importJWK(key, "ECDH-ES"));
}

/**
 * Builds one SD-JWT presentation per answered credential query (the holder's chosen disclosures; KB-JWT
 * with `aud` = client_id, `nonce`, `sd_hash`, and `transaction_data_hashes` for the items naming that
 * query) and posts `vp_token` (+ `state`) to `response_uri`, encrypted for `direct_post.jwt`.
 */
export async function submitPresentation(
  request: VerifiedRequest,
  disclosures: Disclosure[],
): Promise<PresentationOutcome> {
  const vpToken: Record<string, string[]> = {};
  for (const disclosure of disclosures) {
    const holderKey = await getKey(disclosure.credential.keyId);
    if (!holderKey) throw new WalletError("The key of this credential is no longer in the wallet.");
    const items = request.transactionData.filter((t) => t.credentialIds.includes(disclosure.queryId));
    const hashes = await Promise.all(items.map(async (t) => base64url.encode(await sha256(t.encoded))));
    vpToken[disclosure.queryId] = [
      await presentCredential({
        compact: disclosure.credential.compact,
        claims: disclosure.claims,
        disclose: disclosure.paths,
        holderKey,
        aud: request.clientId,
        nonce: request.nonce,
        ...(hashes.length ? { extraKeyBindingClaims: { transaction_data_hashes: hashes } } : {}),
      }),
    ];
  }
  const params: Record<string, unknown> = { vp_token: vpToken };
  if (typeof request.payload.state === "string") params.state = request.payload.state;
  return postResponse(request, params);
}

/** Tells the verifier the holder declined (`access_denied`, OpenID4VP §8.5). */
export function declinePresentation(request: VerifiedRequest): Promise<PresentationOutcome> {
  const params: Record<string, unknown> = {
    error: "access_denied",
    error_description: "The holder declined.",
  };
  if (typeof request.payload.state === "string") params.state = request.payload.state;
  return postResponse(request, params, false);
}

async function postResponse(
  request: VerifiedRequest,
  params: Record<string, unknown>,
  encrypt = request.responseMode === "direct_post.jwt",
): Promise<PresentationOutcome> {
  const form = new URLSearchParams();
  if (encrypt) form.set("response", await encryptResponse(request, params));
  else
    for (const [k, v] of Object.entries(params)) form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  const answer = await send(request.responseUri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form.toString(),
  });
  const body = asObject(answer.body);
  return {
    status: answer.status,
    body: answer.body,
    ...(typeof body.redirect_uri === "string" ? { redirectUri: body.redirect_uri } : {}),
  };
}
