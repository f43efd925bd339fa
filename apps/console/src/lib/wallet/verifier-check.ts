import { base64url, compactVerify, decodeProtectedHeader, importJWK, importX509, type JWK } from "jose";
import { asObject, send, WalletError } from "./http";
import type { LinkedRequest } from "./request-link";
import { readCertificateChain } from "./x509";

const REQUEST_OBJECT_TYP = "oauth-authz-req+jwt";
const DID_JWK = "did:jwk:";
const DID_WEB = "did:web:";

/** The verifier as far as the wallet could check it, by client identifier prefix (OpenID4VP §5.9.3). */
export type VerifierIdentity =
  /** `x509_hash`, `x509_san_dns`: the request object is signed by the `x5c` leaf named by the client id. */
  | { kind: "certificate"; subject: string; issuer: string; notAfter: Date; dnsNames: string[] }
  /**
   * `decentralized_identifier`: signed by the key the did:jwk itself holds, or by a verification method of
   * the did:web's document (`documentUrl`, where it was read).
   */
  | { kind: "did"; did: string; documentUrl?: string }
  /** `redirect_uri`: unsigned; nothing is known but where the answer goes. */
  | { kind: "redirect_uri"; responseUri: string };

export interface CheckedRequest {
  payload: Record<string, unknown>;
  verifier: VerifierIdentity;
}

const fail = (message: string): never => {
  throw new WalletError(`The request is not valid: ${message}.`);
};

const pem = (der: string) =>
  `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END CERTIFICATE-----`;

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
}

function splitClientId(clientId: string): { prefix: string; value: string } {
  const colon = clientId.indexOf(":");
  return colon > 0
    ? { prefix: clientId.slice(0, colon), value: clientId.slice(colon + 1) }
    : { prefix: "", value: clientId };
}

/** The payload of a request object whose signature verifies with `key`. */
async function verifiedPayload(jwt: string, key: CryptoKey | Uint8Array, whose: string) {
  try {
    const verified = await compactVerify(jwt, key, { algorithms: ["ES256"] });
    return asObject(JSON.parse(new TextDecoder().decode(verified.payload)));
  } catch {
    return fail(`the signature does not verify with ${whose}`);
  }
}

/**
 * `x509_hash` / `x509_san_dns`: ES256 signature by the `x5c` leaf, the chain's links, the leaf's validity
 * period, and the client id bound to the leaf (SHA-256 of it; or one of its dNSNames, which must also be
 * the `response_uri` host). The chain is not anchored in a trust list (the sandbox wallet has none).
 */
async function checkCertificate(
  jwt: string,
  header: Record<string, unknown>,
  prefix: string,
  value: string,
): Promise<CheckedRequest> {
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((c) => typeof c === "string"))
    fail("x5c is missing");
  const chainText = x5c as string[];
  const payload = await verifiedPayload(
    jwt,
    await importX509(pem(chainText[0]!), "ES256"),
    "the certificate's key",
  );
  const { leaf, linked } = await readCertificateChain(chainText);
  if (!linked) fail("x5c is not a certificate chain");
  const now = new Date();
  if (leaf.notBefore > now || leaf.notAfter < now) fail("the verifier's certificate is not valid now");
  const leafNames = leaf.dnsNames;
  if (prefix === "x509_hash") {
    if (base64url.encode(await sha256(leaf.rawData)) !== value) {
      fail("x509_hash is not the hash of the certificate");
    }
  } else {
    if (!leafNames.includes(value.toLowerCase())) fail("client_id is not a DNS name of the certificate");
    let host = "";
    try {
      host = new URL(String(payload.response_uri)).hostname.toLowerCase();
    } catch {
      fail("response_uri is not a URL");
    }
    if (host !== value.toLowerCase()) fail("response_uri is not at the certificate's DNS name");
  }
  return {
    payload,
    verifier: {
      kind: "certificate",
      subject: leaf.subject,
      issuer: leaf.issuer,
      notAfter: leaf.notAfter,
      dnsNames: leafNames,
    },
  };
}

/** A public P-256 JWK as a DID document or did:jwk holds it; `where` names it in the refusal. */
function publicP256(value: unknown, where: string): JWK {
  const jwk = asObject(value);
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || typeof jwk.x !== "string" || typeof jwk.y !== "string") {
    fail(`${where} is not a P-256 key (ES256)`);
  }
  if ("d" in jwk) fail(`${where} holds a private key`);
  return { kty: "EC", crv: "P-256", x: jwk.x as string, y: jwk.y as string };
}

/** The public P-256 key a did:jwk holds (did:jwk method: base64url of the JWK's JSON). */
function didJwkKey(did: string): JWK {
  let jwk: unknown;
  try {
    jwk = JSON.parse(new TextDecoder().decode(base64url.decode(did.slice(DID_JWK.length))));
  } catch {
    fail("the did:jwk does not hold a JWK");
  }
  return publicP256(jwk, "the did:jwk");
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Where a did:web document is read (did:web §3.2 "Read"): `https://<host>/<path…>/did.json`, or
 * `/.well-known/did.json` without a path. For a loopback host (a platform on this computer) plain http,
 * the exception browsers make for secure contexts too.
 */
function didWebDocumentUrl(did: string): string {
  const [host, ...path] = did.slice(DID_WEB.length).split(":");
  let url: URL | null = null;
  try {
    url = new URL(`https://${decodeURIComponent(host ?? "")}`);
  } catch {
    fail("the did:web does not name a host");
  }
  const location = url!;
  if (LOOPBACK_HOSTS.has(location.hostname) || location.hostname.endsWith(".localhost"))
    location.protocol = "http:";
  location.pathname =
    path.length === 0 ? "/.well-known/did.json" : `/${path.map(decodeURIComponent).join("/")}/did.json`;
  return location.toString();
}

const mentions = (relationship: unknown, id: string) =>
  Array.isArray(relationship) && relationship.some((entry) => entry === id || asObject(entry).id === id);

/**
 * The key of the did:web verification method `kid` (a DID URL of the client's DID), read from the DID
 * document: the document's `id` must be the DID, the method must be one of its `verificationMethod`s
 * controlled by the DID and named in `assertionMethod` (the relationship for signing statements).
 */
async function didWebKey(did: string, kid: unknown): Promise<{ key: JWK; documentUrl: string }> {
  const methodId =
    typeof kid === "string" && kid.startsWith(`${did}#`)
      ? kid
      : fail("kid is not a verification method of the client's did:web");
  const documentUrl = didWebDocumentUrl(did);
  const answer = await send(documentUrl, { headers: { accept: "application/did+json, application/json" } });
  if (answer.status !== 200) fail(`the did:web document at ${documentUrl} answered ${answer.status}`);
  const document = asObject(answer.body);
  if (document.id !== did) fail("the did:web document is not the client's DID");
  const methods = Array.isArray(document.verificationMethod) ? document.verificationMethod : [];
  const method = asObject(methods.find((m) => asObject(m).id === methodId));
  if (method.id !== methodId) fail("kid is not a verification method of the client's did:web");
  if (method.controller !== did) fail("the verification method is not controlled by the client's did:web");
  if (!mentions(document.assertionMethod, methodId))
    fail("the verification method is not an assertion method of the client's did:web");
  return { key: publicP256(method.publicKeyJwk, "the verification method's key"), documentUrl };
}

/**
 * `decentralized_identifier`: the request object's `kid` must be a verification method of the client's
 * DID (§5.9.3), and its signature must verify with that method's key. did:jwk needs no resolver (its
 * document is the DID itself, its one method `#0`); a did:web document is read from its web location.
 */
async function checkDid(jwt: string, header: Record<string, unknown>, did: string): Promise<CheckedRequest> {
  if (did.startsWith(DID_WEB)) {
    const { key, documentUrl } = await didWebKey(did, header.kid);
    return {
      payload: await verifiedPayload(jwt, await importJWK(key, "ES256"), "the key of the client's did:web"),
      verifier: { kind: "did", did, documentUrl },
    };
  }
  if (!did.startsWith(DID_JWK)) {
    const method = did.split(":").slice(0, 2).join(":") || did;
    fail(`the DID method ${method} is not supported by the sandbox wallet (did:jwk and did:web only)`);
  }
  if (header.kid !== `${did}#0`) fail("kid is not the verification method of the client's did:jwk");
  const key = await importJWK(didJwkKey(did), "ES256");
  return {
    payload: await verifiedPayload(jwt, key, "the key of the client's did:jwk"),
    verifier: { kind: "did", did },
  };
}

/**
 * `redirect_uri`: the request cannot be signed (§5.9.3), so it comes as plain parameters; the client id
 * is the response URI, where the answer goes (`response_uri`, if given, must be it).
 */
function checkRedirectUri(parameters: Record<string, unknown>, value: string): CheckedRequest {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    fail("the redirect_uri client identifier is not a URL");
  }
  if (url?.protocol !== "https:" && url?.protocol !== "http:")
    fail("the redirect_uri client identifier is not an http(s) URL");
  const responseUri = parameters.response_uri ?? value;
  if (responseUri !== value) fail("response_uri differs from the redirect_uri client identifier");
  return {
    payload: { ...parameters, response_uri: value },
    verifier: { kind: "redirect_uri", responseUri: value },
  };
}

const SIGNED_PREFIXES = new Set(["x509_hash", "x509_san_dns", "decentralized_identifier"]);

/**
 * Who sent the request, as a wallet checks it for the link's client identifier prefix: a request object
 * signed as its prefix demands (`x509_hash`, `x509_san_dns`, `decentralized_identifier`), or the plain
 * parameters of a `redirect_uri` request. An unsigned request for a prefix that demands a signature, a
 * signed one for `redirect_uri`, and any other prefix are refused.
 */
export async function checkVerifier(linked: LinkedRequest): Promise<CheckedRequest> {
  const { prefix, value } = splitClientId(linked.clientId);
  if (prefix !== "redirect_uri" && !SIGNED_PREFIXES.has(prefix)) {
    fail(`the client identifier prefix ${prefix || "(none)"} is not supported by the sandbox wallet`);
  }
  if (linked.parameters) {
    if (prefix !== "redirect_uri")
      fail(`a ${prefix} request must be a signed request object, not plain parameters`);
    return checkRedirectUri(linked.parameters, value);
  }
  if (prefix === "redirect_uri") {
    fail(
      "a redirect_uri request cannot be signed (OpenID4VP §5.9.3): it comes as plain parameters, not a request object",
    );
  }
  let header: Record<string, unknown> = {};
  try {
    header = decodeProtectedHeader(linked.jwt) as Record<string, unknown>;
  } catch {
    fail("the request object is not a JWS");
  }
  if (header.typ !== REQUEST_OBJECT_TYP) fail(`typ must be ${REQUEST_OBJECT_TYP}`);
  if (header.alg !== "ES256") fail("alg must be ES256");
  const checked =
    prefix === "decentralized_identifier"
      ? await checkDid(linked.jwt, header, value)
      : await checkCertificate(linked.jwt, header, prefix, value);
  if (checked.payload.client_id !== linked.clientId) fail("client_id differs from the link's");
  return checked;
}
