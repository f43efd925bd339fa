/**
 * TEST HELPER, not production code: a minimal OpenID4VP wallet for HTTP tests and benchmarks.
 *
 * Given an authorization request link (`openid4vp://?client_id=…&request_uri=…`), it fetches and verifies
 * the signed request object, builds one SD-JWT VC presentation per matching DCQL credential query (only the
 * requested top-level claims disclosed, KB-JWT with `aud` = client_id, `nonce`, `iat`, `sd_hash`) and posts
 * `direct_post` or encrypted `direct_post.jwt` to `response_uri`.
 */

import { decodeB64urlJson, randomB64url, sha256B64url } from "../jose/encoding";
import { signEs256Jwt } from "../jose/jws";
import { type Jwk, type KeyInput, toPrivateKey } from "../jose/key-input";
import { transactionDataHash } from "../sd-jwt-vc/key-binding";
import { REQUEST_OBJECT_CONTENT_TYPE } from "./request-object";
import { encryptDirectPostJwtResponse } from "./response-encryption";
import { verifyRequestObject } from "./verify-request-object";
import type { DcqlCredentialQuery, DcqlQuery } from "./z-dcql";

/** What the wallet needs of `fetch` (the global one fits; a benchmark passes a lighter client). */
export type FetchLike = (
  input: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

export interface TestWalletOptions {
  authorizationRequestUri: string;
  fetch: FetchLike;
  /** SD-JWT VC(s) as issued (`<jws>~<disclosures>~`). */
  credential: string | readonly string[];
  holderPrivateKey: KeyInput;
  /** Verify the request object's x5c chain against these roots (optional). */
  trustedRootsPem?: readonly string[];
  /** Disclose every claim instead of the requested ones (to test claim minimisation). */
  discloseAll?: boolean;
  /**
   * Present a credential for each query whatever its `vct`, as a wallet does that matches types through
   * Type Metadata (`extends`); by default only a credential whose `vct` is in `vct_values` is presented.
   */
  matchAnyType?: boolean;
  /** Present every matching credential for a query (several presentations, as DCQL `multiple` allows). */
  presentEveryMatch?: boolean;
  /** Omit the KB-JWT. */
  withoutKeyBinding?: boolean;
  /** Override KB-JWT members (e.g. a wrong nonce) for negative tests. */
  keyBindingOverrides?: Record<string, unknown>;
  /** Override KB-JWT members of one credential query's presentation only (after `keyBindingOverrides`). */
  keyBindingOverridesFor?: Record<string, Record<string, unknown>>;
  /** JWE `enc` for `direct_post.jwt`; default: the first value the verifier lists. */
  enc?: string;
  /** Use `request_uri_method=post` with this `wallet_nonce` when the link allows it. */
  walletNonce?: string;
  /** Post this error instead of a vp_token. */
  error?: { error: string; errorDescription?: string };
  now?: () => number;
}

export interface TestWalletResult {
  status: number;
  body: unknown;
  request: Record<string, unknown>;
  vpToken: Record<string, string[]>;
}

function issuerPayload(credential: string): Record<string, unknown> {
  const jws = credential.split("~")[0] ?? "";
  return decodeB64urlJson(jws.split(".")[1] ?? "") as Record<string, unknown>;
}

function requestedTopLevelNames(query: DcqlCredentialQuery): Set<string> {
  const names = new Set<string>();
  for (const claim of query.claims ?? []) if (typeof claim.path[0] === "string") names.add(claim.path[0]);
  return names;
}

/** Builds an SD-JWT presentation: chosen disclosures plus a KB-JWT (unless `withoutKeyBinding`). */
export async function createTestPresentation(input: {
  credential: string;
  disclose: (claimName: string) => boolean;
  holderPrivateKey?: KeyInput;
  aud: string;
  nonce: string;
  iat: number;
  overrides?: Record<string, unknown>;
}): Promise<string> {
  const parts = input.credential.split("~").filter((p) => p.length > 0);
  const [jws, ...disclosures] = parts;
  const kept = disclosures.filter((d) => {
    const decoded = decodeB64urlJson(d);
    return Array.isArray(decoded) && decoded.length === 3 && input.disclose(String(decoded[1]));
  });
  const sdJwt = `${[jws, ...kept].join("~")}~`;
  if (!input.holderPrivateKey) return sdJwt;
  const kbPayload = {
    iat: input.iat,
    aud: input.aud,
    nonce: input.nonce,
    sd_hash: sha256B64url(sdJwt),
    ...input.overrides,
  };
  const kbJwt = await signEs256Jwt(
    { alg: "ES256", typ: "kb+jwt" },
    kbPayload,
    toPrivateKey(input.holderPrivateKey),
  );
  return `${sdJwt}${kbJwt}`;
}

/** Runs one presentation against a verifier. Throws when the request object is invalid. */
export async function presentWithTestWallet(options: TestWalletOptions): Promise<TestWalletResult> {
  const link = new URL(options.authorizationRequestUri);
  const clientId = link.searchParams.get("client_id");
  const requestUri = link.searchParams.get("request_uri");
  if (!clientId || !requestUri) throw new Error("authorization request lacks client_id or request_uri");
  const usePost = link.searchParams.get("request_uri_method") === "post" && options.walletNonce !== undefined;

  const requestResponse = usePost
    ? await options.fetch(requestUri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: REQUEST_OBJECT_CONTENT_TYPE },
        body: new URLSearchParams({ wallet_nonce: options.walletNonce! }).toString(),
      })
    : await options.fetch(requestUri, { headers: { accept: REQUEST_OBJECT_CONTENT_TYPE } });
  if (!requestResponse.ok) throw new Error(`request_uri answered ${requestResponse.status}`);
  const { payload: request } = await verifyRequestObject(await requestResponse.text(), {
    clientId,
    ...(usePost ? { walletNonce: options.walletNonce } : {}),
    ...(options.trustedRootsPem ? { trustedRootsPem: options.trustedRootsPem } : {}),
  });

  const query = request.dcql_query as DcqlQuery;
  const nonce = String(request.nonce);
  const iat = options.now?.() ?? Math.floor(Date.now() / 1000);
  const credentials = typeof options.credential === "string" ? [options.credential] : options.credential;
  // Each transaction data item is authorised by one presentation of a credential it names (§5.1).
  const pendingTransactionData = Array.isArray(request.transaction_data)
    ? (request.transaction_data as string[]).map((encoded) => ({
        encoded,
        credentialIds: (decodeB64urlJson(encoded) as { credential_ids: string[] }).credential_ids,
      }))
    : [];
  const vpToken: Record<string, string[]> = {};
  for (const credentialQuery of query.credentials) {
    const matches = credentials.filter((c) => {
      const vct = issuerPayload(c).vct;
      if (options.matchAnyType) return true;
      return typeof vct === "string" && (credentialQuery.meta.vct_values ?? []).includes(vct);
    });
    if (matches.length === 0) continue;
    const names = requestedTopLevelNames(credentialQuery);
    const authorised = pendingTransactionData.filter((t) => t.credentialIds.includes(credentialQuery.id));
    for (const t of authorised) pendingTransactionData.splice(pendingTransactionData.indexOf(t), 1);
    const transactionData = authorised.length
      ? { transaction_data_hashes: authorised.map((t) => transactionDataHash(t.encoded)) }
      : {};
    const overrides = {
      ...transactionData,
      ...options.keyBindingOverrides,
      ...options.keyBindingOverridesFor?.[credentialQuery.id],
    };
    vpToken[credentialQuery.id] = await Promise.all(
      (options.presentEveryMatch ? matches : matches.slice(0, 1)).map((match) =>
        createTestPresentation({
          credential: match,
          disclose: (name) => options.discloseAll === true || names.has(name),
          ...(options.withoutKeyBinding ? {} : { holderPrivateKey: options.holderPrivateKey }),
          aud: clientId,
          nonce,
          iat,
          overrides,
        }),
      ),
    );
  }

  const params: Record<string, unknown> = options.error
    ? {
        error: options.error.error,
        ...(options.error.errorDescription ? { error_description: options.error.errorDescription } : {}),
      }
    : { vp_token: vpToken };
  if (typeof request.state === "string") params.state = request.state;

  const form = new URLSearchParams();
  if (request.response_mode === "direct_post.jwt" && !options.error) {
    const metadata = request.client_metadata as
      | { jwks?: { keys?: Jwk[] }; encrypted_response_enc_values_supported?: string[] }
      | undefined;
    const key = metadata?.jwks?.keys?.[0];
    if (!key) throw new Error("direct_post.jwt without client_metadata.jwks");
    const enc = options.enc ?? metadata?.encrypted_response_enc_values_supported?.[0] ?? "A128GCM";
    form.set("response", await encryptDirectPostJwtResponse(params, key, enc));
  } else {
    for (const [k, v] of Object.entries(params)) form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  }
  const response = await options.fetch(String(request.response_uri), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form.toString(),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the raw text
  }
  return { status: response.status, body, request, vpToken };
}

/** A random holder id, handy for benchmarks. */
export function randomHolderLabel(): string {
  return `holder-${randomB64url(6)}`;
}
