import { type KeyObject, X509Certificate } from "node:crypto";
import { decodeProtectedHeader } from "jose";
import { decodeJwtUnverified, typIs, verifyEs256Signature } from "../jose/jws";
import { isDnsName, parseClientId, x509HashClientId } from "./client-id";
import { VpError } from "./errors";
import { REQUEST_OBJECT_TYP } from "./request-object";
import { certificateDnsNames } from "./verifier-certificate";

export interface VerifiedRequestObject {
  payload: Record<string, unknown>;
  header: { alg: string; typ: string; x5c: string[] };
  leaf: X509Certificate;
}

interface ParsedChain {
  chain: X509Certificate[];
  leafKey: KeyObject;
  /** Each certificate is issued and signed by the next one. */
  linked: boolean;
}

/** Parsed x5c chains by their text: a wallet meets the same verifier certificates again and again. */
const parsedChains = new Map<string, ParsedChain>();
const MAX_PARSED_CHAINS = 64;

function parseChain(x5c: string[]): ParsedChain {
  const id = x5c.join(",");
  const cached = parsedChains.get(id);
  if (cached) return cached;
  const chain = x5c.map((b64) => new X509Certificate(Buffer.from(b64, "base64")));
  let linked = true;
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!chain[i]!.checkIssued(chain[i + 1]!) || !chain[i]!.verify(chain[i + 1]!.publicKey)) linked = false;
  }
  const parsed = { chain, leafKey: chain[0]!.publicKey, linked };
  if (parsedChains.size >= MAX_PARSED_CHAINS) parsedChains.delete(parsedChains.keys().next().value!);
  parsedChains.set(id, parsed);
  return parsed;
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
  if (!typIs(header.typ, REQUEST_OBJECT_TYP)) fail(`request object typ must be ${REQUEST_OBJECT_TYP}`);
  if (header.alg !== "ES256") fail("request object alg must be ES256");
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((c) => typeof c === "string"))
    fail("x5c is missing");
  const { chain, leafKey, linked } = parseChain(x5c as string[]);
  const leaf = chain[0]!;

  if (!(await verifyEs256Signature(jwt, leafKey))) fail("request object signature is invalid");
  let payload: Record<string, unknown> = {};
  try {
    payload = decodeJwtUnverified(jwt).payload;
  } catch {
    fail("request object payload is not a JSON object");
  }
  if (payload.client_id !== options.clientId) fail("client_id differs from the authorization request's");
  const { prefix, value } = parseClientId(options.clientId);
  if (prefix === "x509_hash") {
    if (x509HashClientId(leaf.raw) !== options.clientId)
      fail("x509_hash does not match the leaf certificate");
  } else if (prefix === "x509_san_dns") {
    if (!isDnsName(value)) fail("x509_san_dns client_id is not a DNS name");
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

  if (!linked) fail("x5c is not a chain");
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
