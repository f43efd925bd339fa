import {
  base64url,
  CompactEncrypt,
  compactVerify,
  decodeProtectedHeader,
  importJWK,
  importX509,
  type JWK,
} from "jose";
import type { DcqlQuery } from "./dcql";
import { asObject, failure, send, WalletError } from "./http";
import { randomToken } from "./keys";
import { type ClaimPath, presentCredential } from "./sd-jwt";
import { getKey, type StoredCredential } from "./store";
import { dnsNames, isLinkedChain, X509Certificate } from "./x509";

const REQUEST_OBJECT_TYP = "oauth-authz-req+jwt";
const REQUEST_OBJECT_MEDIA_TYPE = "application/oauth-authz-req+jwt";
/** `aud` of a request object under static discovery (OpenID4VP §5.8). */
const SELF_ISSUED_AUDIENCE = "https://self-issued.me/v2";

export interface VerifiedRequest {
  clientId: string;
  payload: Record<string, unknown>;
  dcql: DcqlQuery;
  responseMode: "direct_post" | "direct_post.jwt";
  responseUri: string;
  nonce: string;
  /** The verifier as its certificate names it. */
  verifier: { subject: string; issuer: string; notAfter: Date; dnsNames: string[] };
  /** Decoded `transaction_data` items with their encoded form (hashed into the KB-JWT). */
  transactionData: {
    encoded: string;
    type: string;
    credentialIds: string[];
    item: Record<string, unknown>;
  }[];
}

const pem = (der: string) =>
  `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END CERTIFICATE-----`;

async function sha256(bytes: Uint8Array | string): Promise<Uint8Array> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
}

/**
 * Fetches the request object of an `openid4vp://` link: `request` by value, or `request_uri` by GET, or by
 * POST with a fresh `wallet_nonce` where the link says `request_uri_method=post` (OpenID4VP §5.10).
 */
async function fetchRequestObject(link: URL): Promise<{ jwt: string; walletNonce?: string }> {
  const byValue = link.searchParams.get("request");
  if (byValue) return { jwt: byValue };
  const requestUri = link.searchParams.get("request_uri");
  if (!requestUri) throw new WalletError("The link has neither request nor request_uri.");
  const method = (link.searchParams.get("request_uri_method") ?? "get").toLowerCase();
  if (method !== "get" && method !== "post") throw new WalletError(`Unknown request_uri_method ${method}.`);
  const walletNonce = method === "post" ? randomToken(16) : undefined;
  const answer = walletNonce
    ? await send(requestUri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: REQUEST_OBJECT_MEDIA_TYPE },
        body: new URLSearchParams({ wallet_nonce: walletNonce }).toString(),
      })
    : await send(requestUri, { headers: { accept: REQUEST_OBJECT_MEDIA_TYPE } });
  if (answer.status !== 200) throw failure("Fetching the request", answer);
  return { jwt: answer.text.trim(), ...(walletNonce ? { walletNonce } : {}) };
}

/**
 * Reads and checks an OpenID4VP 1.0 authorization request as a wallet does: the request object's `typ`
 * and ES256 signature by the `x5c` leaf, the chain's links and the leaf's validity period, `client_id`
 * equal to the link's and bound to the certificate (`x509_hash`: SHA-256 of the leaf; `x509_san_dns`: a
 * dNSName SAN, and the `response_uri` host), `aud`, `exp`, the `wallet_nonce` echo, and the response
 * mode. The chain is not anchored in a trust list (the sandbox wallet has none): the verifier's
 * certificate is shown to the holder instead.
 */
export async function loadPresentationRequest(linkText: string): Promise<VerifiedRequest> {
  let link: URL;
  try {
    link = new URL(linkText.trim());
  } catch {
    throw new WalletError("That is not a presentation request link (openid4vp://?…).");
  }
  const clientId = link.searchParams.get("client_id");
  if (!clientId) throw new WalletError("The link has no client_id.");
  const { jwt, walletNonce } = await fetchRequestObject(link);
  const fail = (message: string): never => {
    throw new WalletError(`The request is not valid: ${message}.`);
  };

  let header: Record<string, unknown> = {};
  try {
    header = decodeProtectedHeader(jwt) as Record<string, unknown>;
  } catch {
    fail("the request object is not a JWS");
  }
  if (header.typ !== REQUEST_OBJECT_TYP) fail(`typ must be ${REQUEST_OBJECT_TYP}`);
  if (header.alg !== "ES256") fail("alg must be ES256");
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((c) => typeof c === "string"))
    fail("x5c is missing");
  const chainText = x5c as string[];
  let payload: Record<string, unknown> = {};
  try {
    const verified = await compactVerify(jwt, await importX509(pem(chainText[0]!), "ES256"));
    payload = asObject(JSON.parse(new TextDecoder().decode(verified.payload)));
  } catch {
    fail("the signature does not verify with the certificate's key");
  }
  const chain = chainText.map((der) => new X509Certificate(der));
  const leaf = chain[0]!;
  if (!(await isLinkedChain(chain))) fail("x5c is not a certificate chain");
  const now = new Date();
  if (leaf.notBefore > now || leaf.notAfter < now) fail("the verifier's certificate is not valid now");

  if (payload.client_id !== clientId) fail("client_id differs from the link's");
  const colon = clientId.indexOf(":");
  const prefix = colon > 0 ? clientId.slice(0, colon) : "";
  const value = clientId.slice(colon + 1);
  const leafNames = dnsNames(leaf);
  if (prefix === "x509_hash") {
    if (base64url.encode(await sha256(new Uint8Array(leaf.rawData))) !== value) {
      fail("x509_hash is not the hash of the certificate");
    }
  } else if (prefix === "x509_san_dns") {
    if (!leafNames.includes(value.toLowerCase())) fail("client_id is not a DNS name of the certificate");
    let host = "";
    try {
      host = new URL(String(payload.response_uri)).hostname.toLowerCase();
    } catch {
      fail("response_uri is not a URL");
    }
    if (host !== value.toLowerCase()) fail("response_uri is not at the certificate's DNS name");
  } else {
    fail(`the client identifier prefix ${prefix || "(none)"} is not supported by the sandbox wallet`);
  }
  const aud = payload.aud;
  if (aud !== undefined && aud !== SELF_ISSUED_AUDIENCE) fail(`aud must be ${SELF_ISSUED_AUDIENCE}`);
  if (typeof payload.exp === "number" && payload.exp * 1000 < Date.now()) fail("the request has expired");
  if (walletNonce !== undefined && payload.wallet_nonce !== walletNonce) fail("wallet_nonce is not echoed");
  if (payload.response_type !== "vp_token") fail("response_type must be vp_token");
  const responseMode = payload.response_mode;
  if (responseMode !== "direct_post" && responseMode !== "direct_post.jwt") {
    fail(`response_mode ${String(responseMode)} is not supported (direct_post, direct_post.jwt)`);
  }
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
    clientId,
    payload,
    dcql: dcql as unknown as DcqlQuery,
    responseMode: responseMode as VerifiedRequest["responseMode"],
    responseUri: payload.response_uri as string,
    nonce: payload.nonce as string,
    verifier: { subject: leaf.subject, issuer: leaf.issuer, notAfter: leaf.notAfter, dnsNames: leafNames },
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
