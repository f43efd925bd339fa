import { X509Certificate } from "node:crypto";
import { compactVerify, decodeProtectedHeader } from "jose";
import { parseClientId, x509HashClientId } from "./client-id";
import { VpError } from "./errors";
import { REQUEST_OBJECT_TYP } from "./request-object";
import { certificateDnsNames } from "./verifier-certificate";

export interface VerifiedRequestObject {
  payload: Record<string, unknown>;
  header: { alg: string; typ: string; x5c: string[] };
  leaf: X509Certificate;
}

/**
 * Wallet-side checks of a signed Request Object (OpenID4VP §5, §5.9.3, §5.10): `typ`, ES256 signature by
 * the `x5c` leaf, payload `client_id` equal to the outer one, prefix rules (`x509_hash`: hash of the leaf;
 * `x509_san_dns`: leaf dNSName SAN and `response_uri` host), `wallet_nonce` echo, `exp`. With
 * `trustedRoots`, the chain must end at one of them. Used by the test wallet and by tests.
 */
export async function verifyRequestObject(
  jwt: string,
  options: { clientId: string; walletNonce?: string; trustedRootsPem?: readonly string[]; now?: Date },
): Promise<VerifiedRequestObject> {
  const fail = (message: string): never => {
    throw new VpError("invalid_request", message);
  };
  let header: Record<string, unknown> = {};
  try {
    header = decodeProtectedHeader(jwt) as Record<string, unknown>;
  } catch {
    fail("request object is not a JWS");
  }
  if (header.typ !== REQUEST_OBJECT_TYP) fail(`request object typ must be ${REQUEST_OBJECT_TYP}`);
  if (header.alg !== "ES256") fail("request object alg must be ES256");
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((c) => typeof c === "string"))
    fail("x5c is missing");
  const chain = (x5c as string[]).map((b64) => new X509Certificate(Buffer.from(b64, "base64")));
  const leaf = chain[0]!;

  let payload: Record<string, unknown> = {};
  try {
    const { payload: bytes } = await compactVerify(jwt, leaf.publicKey, { algorithms: ["ES256"] });
    payload = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch {
    fail("request object signature is invalid");
  }
  if (payload.client_id !== options.clientId) fail("client_id differs from the authorization request's");
  const { prefix, value } = parseClientId(options.clientId);
  if (prefix === "x509_hash") {
    if (x509HashClientId(leaf.raw) !== options.clientId)
      fail("x509_hash does not match the leaf certificate");
  } else if (prefix === "x509_san_dns") {
    if (!certificateDnsNames(leaf).includes(value.toLowerCase()))
      fail("client_id is not a dNSName of the leaf");
    const responseUri = typeof payload.response_uri === "string" ? payload.response_uri : "";
    let host = "";
    try {
      host = new URL(responseUri).hostname.toLowerCase();
    } catch {
      fail("response_uri is not a URL");
    }
    if (host !== value.toLowerCase()) fail("response_uri host does not match x509_san_dns client_id");
  } else {
    fail(`unsupported client identifier prefix ${String(prefix)}`);
  }

  for (let i = 0; i + 1 < chain.length; i++) {
    if (!chain[i]!.checkIssued(chain[i + 1]!) || !chain[i]!.verify(chain[i + 1]!.publicKey))
      fail("x5c is not a chain");
  }
  if (options.trustedRootsPem) {
    const last = chain[chain.length - 1]!;
    const roots = options.trustedRootsPem.map((pem) => new X509Certificate(pem));
    const anchored = roots.some((root) => last.checkIssued(root) && last.verify(root.publicKey));
    if (!anchored) fail("x5c does not chain to a trusted root");
  }
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (typeof payload.exp === "number" && payload.exp < now) fail("request object has expired");
  if (options.walletNonce !== undefined && payload.wallet_nonce !== options.walletNonce) {
    fail("wallet_nonce is not echoed");
  }
  if (payload.redirect_uri !== undefined && payload.response_mode !== undefined) {
    fail("redirect_uri must not be present with direct_post");
  }
  return { payload, header: { alg: "ES256", typ: REQUEST_OBJECT_TYP, x5c: x5c as string[] }, leaf };
}
