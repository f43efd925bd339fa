// How the sandbox wallet reads a presentation request for each client identifier prefix and delivery
// (OpenID4VP 1.0 §5, §5.9.3): requests built here with jose and @peculiar/x509 as an independent verifier.
import "@abraham/reflection";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  BasicConstraintsExtension,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from "@peculiar/x509";
import { base64url, exportJWK, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadPresentationRequest } from "./presentation";

const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;
const RESPONSE_URI = "https://verifier.example/wallet/verifier/responses/state-1";
const DCQL = { credentials: [{ id: "card", format: "dc+sd-jwt", claims: [{ path: ["given_name"] }] }] };

const keyPair = () => crypto.subtle.generateKey(ES256, true, ["sign", "verify"]) as Promise<CryptoKeyPair>;

function requestPayload(clientId: string, extra: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    response_type: "vp_token",
    response_mode: "direct_post",
    client_id: clientId,
    response_uri: RESPONSE_URI,
    nonce: "n-0S6_WzA2Mj-0S6_WzA2Mj",
    state: "state-1",
    dcql_query: DCQL,
    client_metadata: { vp_formats_supported: { "dc+sd-jwt": {} } },
    aud: "https://self-issued.me/v2",
    iat: now,
    exp: now + 300,
    ...extra,
  };
}

const sign = (payload: Record<string, unknown>, key: CryptoKey, header: Record<string, unknown>) =>
  new SignJWT(payload).setProtectedHeader({ alg: "ES256", typ: "oauth-authz-req+jwt", ...header }).sign(key);

const linkWithRequest = (clientId: string, jwt: string) =>
  `openid4vp://?${new URLSearchParams({ client_id: clientId, request: jwt })}`;

/** Every parameter in the link, objects JSON-encoded (the unsigned request of `redirect_uri`). */
function linkWithParameters(parameters: Record<string, unknown>) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (name === "aud" || name === "iat" || name === "exp") continue;
    query.set(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  return `openid4vp://?${query}`;
}

async function didJwk() {
  const pair = await keyPair();
  const { kty, crv, x, y } = await exportJWK(pair.publicKey);
  const did = `did:jwk:${base64url.encode(JSON.stringify({ crv, kty, x, y }))}`;
  return { did, clientId: `decentralized_identifier:${did}`, privateKey: pair.privateKey };
}

async function certificate() {
  const keys = await keyPair();
  const now = Date.now();
  const leaf = await X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=verifier.example",
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    keys,
    extensions: [
      new BasicConstraintsExtension(false),
      new SubjectAlternativeNameExtension([{ type: "dns", value: "verifier.example" }]),
    ],
  });
  const der = new Uint8Array(leaf.rawData);
  const hash = base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", der)));
  return {
    x5c: [Buffer.from(der).toString("base64")],
    clientId: `x509_hash:${hash}`,
    privateKey: keys.privateKey,
  };
}

const refusal = (link: string) =>
  loadPresentationRequest(link).then(
    () => "accepted",
    (error: Error) => error.message,
  );

afterEach(() => vi.unstubAllGlobals());

describe("redirect_uri: unsigned, plain parameters", () => {
  const clientId = `redirect_uri:${RESPONSE_URI}`;

  it("reads the parameters and answers at the client id's URL", async () => {
    const request = await loadPresentationRequest(linkWithParameters(requestPayload(clientId)));
    expect(request.delivery).toBe("parameters");
    expect(request.verifier).toEqual({ kind: "redirect_uri", responseUri: RESPONSE_URI });
    expect(request.responseUri).toBe(RESPONSE_URI);
    expect(request.clientId).toBe(clientId);
    expect(request.dcql).toEqual(DCQL);
    expect(request.responseMode).toBe("direct_post");
  });

  it("takes the client id's URL when response_uri is left out (§5.9.3)", async () => {
    const { response_uri: _omitted, ...payload } = requestPayload(clientId);
    expect((await loadPresentationRequest(linkWithParameters(payload))).responseUri).toBe(RESPONSE_URI);
  });

  it("refuses a response_uri that is not the client id's URL", async () => {
    const link = linkWithParameters(
      requestPayload(clientId, { response_uri: "https://elsewhere.example/r" }),
    );
    expect(await refusal(link)).toBe(
      "The request is not valid: response_uri differs from the redirect_uri client identifier.",
    );
  });

  it("refuses a signed request object (a redirect_uri request cannot be signed)", async () => {
    const { privateKey } = await keyPair();
    const jwt = await sign(requestPayload(clientId), privateKey, {});
    expect(await refusal(linkWithRequest(clientId, jwt))).toMatch(/redirect_uri request cannot be signed/);
  });

  it("refuses a client id that is not an http(s) URL, and a parameter that is not JSON", async () => {
    expect(await refusal(linkWithParameters(requestPayload("redirect_uri:javascript:alert(1)")))).toMatch(
      /not an http\(s\) URL/,
    );
    const link = new URL(linkWithParameters(requestPayload(clientId)));
    link.searchParams.set("dcql_query", "{not-json");
    expect(await refusal(link.toString())).toBe("The request is not valid: dcql_query is not JSON.");
  });
});

describe("decentralized_identifier: did:jwk", () => {
  it("verifies the request object with the key in the DID", async () => {
    const { did, clientId, privateKey } = await didJwk();
    const jwt = await sign(requestPayload(clientId), privateKey, { kid: `${did}#0` });
    const request = await loadPresentationRequest(linkWithRequest(clientId, jwt));
    expect(request.verifier).toEqual({ kind: "did", did });
    expect(request.delivery).toBe("request");
    expect(request.responseUri).toBe(RESPONSE_URI);
  });

  it("refuses a request signed by another key than the DID's", async () => {
    const { did, clientId } = await didJwk();
    const other = await keyPair();
    const jwt = await sign(requestPayload(clientId), other.privateKey, { kid: `${did}#0` });
    expect(await refusal(linkWithRequest(clientId, jwt))).toBe(
      "The request is not valid: the signature does not verify with the key of the client's did:jwk.",
    );
  });

  it("refuses a kid that is not the DID's verification method", async () => {
    const { clientId, privateKey } = await didJwk();
    const other = await didJwk();
    const jwt = await sign(requestPayload(clientId), privateKey, { kid: `${other.did}#0` });
    expect(await refusal(linkWithRequest(clientId, jwt))).toMatch(/kid is not the verification method/);
  });

  it("refuses other DID methods and unsigned parameters", async () => {
    const { privateKey } = await keyPair();
    const key = "decentralized_identifier:did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169";
    const jwt = await sign(requestPayload(key), privateKey, { kid: "did:key:zDnae#1" });
    expect(await refusal(linkWithRequest(key, jwt))).toMatch(/DID method did:key is not supported/);
    const { clientId } = await didJwk();
    expect(await refusal(linkWithParameters(requestPayload(clientId)))).toMatch(
      /decentralized_identifier request must be a signed request object/,
    );
  });

  it("refuses a payload client_id other than the link's", async () => {
    const { did, clientId, privateKey } = await didJwk();
    const jwt = await sign(requestPayload("decentralized_identifier:did:jwk:other"), privateKey, {
      kid: `${did}#0`,
    });
    expect(await refusal(linkWithRequest(clientId, jwt))).toMatch(/client_id differs from the link's/);
  });
});

describe("decentralized_identifier: did:web", () => {
  /** A DID document server on loopback (the wallet reads it over http there), answering `documentFor`. */
  async function didWebServer(documentFor: (did: string) => unknown) {
    const server = createServer((request, response) => {
      const body = request.url === "/verifier/t1/sandbox/did.json" ? documentFor(did) : undefined;
      response
        .writeHead(body ? 200 : 404, { "content-type": "application/did+json" })
        .end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const did = `did:web:127.0.0.1%3A${port}:verifier:t1:sandbox`;
    servers.push(server);
    return { did, clientId: `decentralized_identifier:${did}` };
  }
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  const documentWith =
    (publicJwk: Record<string, unknown>, options: { assertion?: boolean } = {}) =>
    (did: string) => ({
      id: did,
      verificationMethod: [
        { id: `${did}#key-1`, type: "JsonWebKey2020", controller: did, publicKeyJwk: publicJwk },
      ],
      assertionMethod: options.assertion === false ? [] : [`${did}#key-1`],
    });

  it("reads the DID document and verifies the request object with the method `kid` names", async () => {
    const { privateKey, publicKey } = await keyPair();
    const { kty, crv, x, y } = await exportJWK(publicKey);
    const { did, clientId } = await didWebServer(documentWith({ kty, crv, x, y }));
    const jwt = await sign(requestPayload(clientId), privateKey, { kid: `${did}#key-1` });
    const request = await loadPresentationRequest(linkWithRequest(clientId, jwt));
    expect(request.verifier).toEqual({
      kind: "did",
      did,
      documentUrl: `http://${did.split(":")[2]!.replace("%3A", ":")}/verifier/t1/sandbox/did.json`,
    });
  });

  it("refuses a signature by another key, a method not for assertions, a kid of another DID and a missing document", async () => {
    const signer = await keyPair();
    const published = await exportJWK((await keyPair()).publicKey);
    const other = await didWebServer(documentWith(published));
    const jwt = await sign(requestPayload(other.clientId), signer.privateKey, { kid: `${other.did}#key-1` });
    expect(await refusal(linkWithRequest(other.clientId, jwt))).toBe(
      "The request is not valid: the signature does not verify with the key of the client's did:web.",
    );

    const own = await exportJWK(signer.publicKey);
    const notAssertion = await didWebServer(documentWith(own, { assertion: false }));
    const jwt2 = await sign(requestPayload(notAssertion.clientId), signer.privateKey, {
      kid: `${notAssertion.did}#key-1`,
    });
    expect(await refusal(linkWithRequest(notAssertion.clientId, jwt2))).toMatch(/not an assertion method/);

    const good = await didWebServer(documentWith(own));
    const jwt3 = await sign(requestPayload(good.clientId), signer.privateKey, { kid: `${other.did}#key-1` });
    expect(await refusal(linkWithRequest(good.clientId, jwt3))).toMatch(/kid is not a verification method/);

    const missing = `decentralized_identifier:${good.did}:elsewhere`;
    const jwt4 = await sign(requestPayload(missing), signer.privateKey, {
      kid: `${good.did}:elsewhere#key-1`,
    });
    expect(await refusal(linkWithRequest(missing, jwt4))).toMatch(/did:web document at .* answered 404/);
  });

  it("refuses a document whose id is another DID, and a published private key", async () => {
    const signer = await keyPair();
    const own = await exportJWK(signer.publicKey);
    const impostor = await didWebServer((did) => ({
      ...documentWith(own)(did),
      id: "did:web:elsewhere.example",
    }));
    const jwt = await sign(requestPayload(impostor.clientId), signer.privateKey, {
      kid: `${impostor.did}#key-1`,
    });
    expect(await refusal(linkWithRequest(impostor.clientId, jwt))).toMatch(
      /document is not the client's DID/,
    );

    const leaked = await didWebServer(documentWith(await exportJWK(signer.privateKey)));
    const jwt2 = await sign(requestPayload(leaked.clientId), signer.privateKey, {
      kid: `${leaked.did}#key-1`,
    });
    expect(await refusal(linkWithRequest(leaked.clientId, jwt2))).toMatch(/holds a private key/);
  });
});

describe("x509_hash", () => {
  it("reads a signed request by value (request=) and one fetched from request_uri", async () => {
    const { x5c, clientId, privateKey } = await certificate();
    const jwt = await sign(requestPayload(clientId), privateKey, { x5c });
    const byValue = await loadPresentationRequest(linkWithRequest(clientId, jwt));
    expect(byValue.delivery).toBe("request");
    expect(byValue.verifier).toMatchObject({ kind: "certificate", dnsNames: ["verifier.example"] });

    const fetched = vi.fn(async () => new Response(jwt, { status: 200 }));
    vi.stubGlobal("fetch", fetched);
    const requestUri = "https://verifier.example/wallet/verifier/requests/state-1";
    const byReference = await loadPresentationRequest(
      `openid4vp://?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`,
    );
    expect(byReference.delivery).toBe("request_uri");
    expect(fetched).toHaveBeenCalledWith(requestUri, expect.objectContaining({ credentials: "omit" }));
  });

  it("refuses a request whose signature is not the certificate's key, and unsigned parameters", async () => {
    const { x5c, clientId } = await certificate();
    const other = await keyPair();
    const jwt = await sign(requestPayload(clientId), other.privateKey, { x5c });
    expect(await refusal(linkWithRequest(clientId, jwt))).toBe(
      "The request is not valid: the signature does not verify with the certificate's key.",
    );
    expect(await refusal(linkWithParameters(requestPayload(clientId)))).toMatch(
      /x509_hash request must be a signed request object/,
    );
  });
});

it("refuses a client identifier prefix the sandbox wallet does not support", async () => {
  const { privateKey } = await keyPair();
  const clientId = "verifier_attestation:verifier.example";
  const jwt = await sign(requestPayload(clientId), privateKey, {});
  expect(await refusal(linkWithRequest(clientId, jwt))).toBe(
    "The request is not valid: the client identifier prefix verifier_attestation is not supported by the sandbox wallet.",
  );
  expect(await refusal("openid4vp://?client_id=x&request=a&request_uri=https%3A%2F%2Fv.example%2Fr")).toMatch(
    /both request and request_uri/,
  );
});
