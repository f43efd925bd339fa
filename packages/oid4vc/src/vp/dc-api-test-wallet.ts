/**
 * TEST HELPER, not production code: the wallet side of OpenID4VP over the Digital Credentials API
 * (Appendix A), as the browser hands it a request. For a signed request it verifies the request object
 * (`x5c`, client_id) and that the calling origin is in `expected_origins`; it answers with one SD-JWT VC
 * presentation per matching credential query, KB-JWT `aud` = the client_id (signed) or `origin:<origin>`
 * (unsigned, multi-signed), and for `dc_api.jwt` encrypts `{ vp_token }` to the key in
 * `client_metadata.jwks`. A multi-signed request (A.3.2) it authenticates by its `x509_hash` signature,
 * as a HAIP wallet would: ES256 by the `x5c` leaf, `client_id` in that protected header the leaf's hash.
 */

import { X509Certificate } from "node:crypto";
import { decodeB64urlJson } from "../jose/encoding";
import { decodeJwtUnverified, verifyEs256Signature } from "../jose/jws";
import type { Jwk, KeyInput } from "../jose/key-input";
import { x509HashClientId } from "./client-id";
import {
  DC_API_PROTOCOL_MULTISIGNED,
  DC_API_PROTOCOL_SIGNED,
  DC_API_PROTOCOL_UNSIGNED,
  type GeneralJws,
  originClientId,
} from "./dc-api";
import { encryptDirectPostJwtResponse } from "./response-encryption";
import { createTestPresentation } from "./test-wallet";
import { verifyRequestObject } from "./verify-request-object";
import type { DcqlQuery } from "./z-dcql";

export interface DcApiTestWalletOptions {
  /** `{ protocol, data }` as the page passed it to `navigator.credentials.get`. */
  request: { protocol: string; data: unknown };
  /** The origin of the calling page, as the browser tells the wallet. */
  origin: string;
  credential: string | readonly string[];
  holderPrivateKey: KeyInput;
  trustedRootsPem?: readonly string[];
  /** Override KB-JWT members (e.g. a wrong `aud`) for negative tests. */
  keyBindingOverrides?: Record<string, unknown>;
  /** Encrypt to this key instead of the request's (negative tests). */
  encryptTo?: Jwk;
  /** Answer this error instead of a vp_token. */
  error?: { error: string; errorDescription?: string };
  now?: () => number;
}

/** What `navigator.credentials.get` resolves with: a DigitalCredential's `protocol` and `data`. */
export interface DcApiTestWalletResult {
  protocol: string;
  data: Record<string, unknown>;
  /** The request parameters the wallet acted on. */
  request: Record<string, unknown>;
}

function issuerVct(credential: string): unknown {
  const jws = credential.split("~")[0] ?? "";
  return (decodeB64urlJson(jws.split(".")[1] ?? "") as Record<string, unknown>).vct;
}

/** The parameters of a multi-signed request, with the `client_id` of its verified `x509_hash` signature. */
async function verifyMultiSignedByX509Hash(jws: unknown): Promise<Record<string, unknown>> {
  const general = jws as GeneralJws | null;
  if (typeof general?.payload !== "string" || !Array.isArray(general.signatures))
    throw new Error("a multi-signed request carries `request` as a General JWS JSON object");
  for (const entry of general.signatures) {
    const header = decodeB64urlJson(entry.protected) as Record<string, unknown>;
    const clientId = header.client_id;
    if (typeof clientId !== "string" || !clientId.startsWith("x509_hash:")) continue;
    if (header.alg !== "ES256" || !Array.isArray(header.x5c))
      throw new Error("x509_hash signature without x5c");
    const leaf = Buffer.from(String(header.x5c[0]), "base64");
    if (x509HashClientId(leaf) !== clientId) throw new Error("x509_hash does not match the leaf certificate");
    const compact = `${entry.protected}.${general.payload}.${entry.signature}`;
    if (!(await verifyEs256Signature(compact, new X509Certificate(leaf).publicKey)))
      throw new Error("the x509_hash signature is invalid");
    const payload = decodeB64urlJson(general.payload) as Record<string, unknown>;
    if ("client_id" in payload || "verifier_info" in payload)
      throw new Error("client_id and verifier_info belong in the protected headers (A.3.2)");
    return { ...payload, client_id: clientId };
  }
  throw new Error("no x509_hash signature");
}

/** Answers one DC API request as a holder would. Throws when the request must be refused. */
export async function answerDcApiRequest(options: DcApiTestWalletOptions): Promise<DcApiTestWalletResult> {
  const { protocol } = options.request;
  let request: Record<string, unknown>;
  let audience: string;
  if (protocol === DC_API_PROTOCOL_SIGNED) {
    const jws = (options.request.data as { request?: unknown } | null)?.request;
    if (typeof jws !== "string") throw new Error("a signed request carries `request`");
    const clientId = String(decodeJwtUnverified(jws).payload.client_id);
    ({ payload: request } = await verifyRequestObject(jws, {
      clientId,
      ...(options.trustedRootsPem ? { trustedRootsPem: options.trustedRootsPem } : {}),
    }));
    const expected = request.expected_origins;
    if (!Array.isArray(expected) || !expected.includes(options.origin))
      throw new Error(`origin ${options.origin} is not in expected_origins`);
    // A.4: the audience is the origin, for signed requests too.
    audience = originClientId(options.origin);
  } else if (protocol === DC_API_PROTOCOL_MULTISIGNED) {
    request = await verifyMultiSignedByX509Hash(
      (options.request.data as { request?: unknown } | null)?.request,
    );
    const expected = request.expected_origins;
    if (!Array.isArray(expected) || !expected.includes(options.origin))
      throw new Error(`origin ${options.origin} is not in expected_origins`);
    // A.4: the audience is the origin, for signed requests too.
    audience = originClientId(options.origin);
  } else if (protocol === DC_API_PROTOCOL_UNSIGNED) {
    request = options.request.data as Record<string, unknown>;
    // A.2: the wallet ignores a client_id in an unsigned request; the origin identifies the verifier.
    audience = originClientId(options.origin);
  } else {
    throw new Error(`unsupported protocol ${protocol}`);
  }
  const responseMode = request.response_mode;
  if (responseMode !== "dc_api" && responseMode !== "dc_api.jwt")
    throw new Error(`unexpected response_mode ${String(responseMode)}`);

  const query = request.dcql_query as DcqlQuery;
  const credentials = typeof options.credential === "string" ? [options.credential] : options.credential;
  const iat = options.now?.() ?? Math.floor(Date.now() / 1000);
  const vpToken: Record<string, string[]> = {};
  for (const credentialQuery of query.credentials) {
    const match = credentials.find((c) => {
      const vct = issuerVct(c);
      return typeof vct === "string" && (credentialQuery.meta.vct_values ?? []).includes(vct);
    });
    if (!match) continue;
    const names = new Set(
      (credentialQuery.claims ?? []).map((c) => c.path[0]).filter((n): n is string => typeof n === "string"),
    );
    vpToken[credentialQuery.id] = [
      await createTestPresentation({
        credential: match,
        disclose: (name) => names.has(name),
        holderPrivateKey: options.holderPrivateKey,
        aud: audience,
        nonce: String(request.nonce),
        iat,
        ...(options.keyBindingOverrides ? { overrides: options.keyBindingOverrides } : {}),
      }),
    ];
  }
  const params: Record<string, unknown> = options.error
    ? {
        error: options.error.error,
        ...(options.error.errorDescription ? { error_description: options.error.errorDescription } : {}),
      }
    : { vp_token: vpToken };
  if (responseMode === "dc_api" || options.error) return { protocol, data: params, request };
  const metadata = request.client_metadata as
    | { jwks?: { keys?: Jwk[] }; encrypted_response_enc_values_supported?: string[] }
    | undefined;
  const key = options.encryptTo ?? metadata?.jwks?.keys?.[0];
  if (!key) throw new Error("dc_api.jwt without client_metadata.jwks");
  const enc = metadata?.encrypted_response_enc_values_supported?.[0] ?? "A128GCM";
  return { protocol, data: { response: await encryptDirectPostJwtResponse(params, key, enc) }, request };
}
