// The `decentralized_identifier` client identifier prefix with did:web (OpenID4VP 1.0 §5.9.3, policy
// `didMethod: web`): the client_id is did:web:<public host>:verifier:<tenant>:<environment>, the API serves
// its DID document from the public origin, and request objects are signed with the verifier key, `kid` =
// the document's verification method. oid4vc-ts as the wallet resolves the DID (by reading the document)
// and its answer verifies the session.

import { X509Certificate } from "node:crypto";
import { didWebDocumentUrl } from "@cred/oid4vc";
import { type CryptoKey, compactVerify, decodeProtectedHeader, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, employeePolicyBody } from "./fixtures";
import { call, type TestServer } from "./harness";
import {
  heldCredentialScene,
  oid4vpTsWallet,
  presentWithOid4vpTs,
  resolveWithOid4vpTs,
} from "./oid4vp-ts-wallet";

let t: TestServer;
let issuer: ActiveIssuer;
let credential: string;
let holderKey: CryptoKey;
const resolvedDids: string[] = [];

const wallet = oid4vpTsWallet({ onDidResolved: (did) => resolvedDids.push(did) });

beforeAll(async () => {
  const scene = await heldCredentialScene();
  ({ t, issuer, credential, holderKey } = scene);
  await scene.createPolicy("did-web", {
    clientIdPrefix: "decentralized_identifier",
    didMethod: "web",
    dcApi: "signed_or_unsigned",
  });
});
afterAll(() => t?.close());

const start = (body: Record<string, unknown> = {}) =>
  call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy: "did-web", ...body } });

const expectedDid = () => {
  const host = new URL(t.baseUrl).host.replace(":", "%3A");
  return `did:web:${host}:verifier:${t.tenantId}:sandbox`;
};

describe("clientIdPrefix decentralized_identifier with didMethod web", () => {
  it("oid4vc-ts reads the DID document, accepts the request signed by its key and its answer verifies the session", async () => {
    const created = await start();
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const session = created.body.data;
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    expect(clientId).toBe(`decentralized_identifier:${expectedDid()}`);

    const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
    expect(resolved.client.prefix).toBe("decentralized_identifier");
    expect(resolved.client.didUrl?.startsWith(`${expectedDid()}#`)).toBe(true);
    expect(resolvedDids).toContain(expectedDid());

    const submitted = await presentWithOid4vpTs(wallet, resolved, { credential, holderKey });
    expect(submitted.response.status).toBe(200);
    const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("verified");
  });

  it("the DID document at the did:web URL lists the verifier key under the kid of the request objects", async () => {
    const session = (await start()).body.data;
    const jws = await (await fetch(session.requestUri)).text();
    const header = decodeProtectedHeader(jws);
    expect(header.x5c).toBeUndefined();
    expect(String(header.kid)).toMatch(
      new RegExp(`^${expectedDid().replace(/[.%]/g, "\\$&")}#[A-Za-z0-9_-]{43}$`),
    );

    const url = `${t.baseUrl}/verifier/${t.tenantId}/sandbox/did.json`;
    expect(didWebDocumentUrl(expectedDid(), "http")).toBe(url);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/did+json");
    const document = await response.json();
    expect(document.id).toBe(expectedDid());
    expect(document.verificationMethod).toHaveLength(1);
    const [method] = document.verificationMethod;
    expect(method).toMatchObject({ id: header.kid, type: "JsonWebKey2020", controller: expectedDid() });
    expect(method.publicKeyJwk).not.toHaveProperty("d");
    expect(document.assertionMethod).toEqual([header.kid]);
    // The key is the verifier certificate's.
    const certificate = await call(t, "GET", "/management/verifier-certificate", { key: t.adminKey });
    const pem = certificate.body.data.certificateChainPem as string;
    const leaf = new X509Certificate(pem.split(/(?<=-----END CERTIFICATE-----)/)[0]!);
    expect(leaf.publicKey.export({ format: "jwk" })).toMatchObject({
      x: method.publicKeyJwk.x,
      y: method.publicKeyJwk.y,
    });
    await compactVerify(jws, await importJWK(method.publicKeyJwk, "ES256"));
  });

  it("a signed Digital Credentials API request carries the did:web kid too", async () => {
    const created = await start({ dcApi: { origins: ["https://shop.example.com"], signed: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const header = decodeProtectedHeader(created.body.data.dcApiRequest.data.request);
    expect(String(header.kid).startsWith(`${expectedDid()}#`)).toBe(true);
  });

  it("a multi-signed DC API request's decentralized_identifier signature is the did:web's", async () => {
    const created = await start({
      dcApi: {
        origins: ["https://shop.example.com"],
        clientIdPrefixes: ["x509_hash", "decentralized_identifier"],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { signatures } = created.body.data.dcApiRequest.data.request;
    const header = decodeProtectedHeader({ protected: signatures[1].protected } as never);
    expect(header.client_id).toBe(`decentralized_identifier:${expectedDid()}`);
    expect(String(header.kid).startsWith(`${expectedDid()}#`)).toBe(true);
  });

  it("404 for a tenant without a verifier key (none is created), an unknown environment or tenant", async () => {
    // Another tenant that never verified: no key, and reading its DID twice does not make one.
    const other = await t.otherTenant();
    for (let i = 0; i < 2; i++) {
      const none = await fetch(`${t.baseUrl}/verifier/${other.tenantId}/sandbox/did.json`);
      expect(none.status).toBe(404);
      expect((await none.json()).error).toBe("invalid_request");
    }
    expect((await fetch(`${t.baseUrl}/verifier/${t.tenantId}/staging/did.json`)).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/verifier/ten_unknown/sandbox/did.json`)).status).toBe(404);
  });

  it("400 for didMethod web without the decentralized_identifier prefix", async () => {
    const refused = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: employeePolicyBody(issuer, "did-web-x509", { clientIdPrefix: "x509_hash", didMethod: "web" }),
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("didMethod");
  });
});
