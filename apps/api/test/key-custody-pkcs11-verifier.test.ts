// Verifier request-object signing keys in a PKCS#11 token (docs/key-custody.md, issue #27), with a real
// SoftHSM2 token of this file's own: the access-certificate key generated in the token, the CSR and every
// request object (request_uri, by value, DC API) signed there, the token away → clean refusals.
import { X509Certificate } from "node:crypto";
import { createTestAccessCa, type TestAccessCa } from "@cred/oid4vc";
import { x509 } from "@cred/oid4vc/x509";
import { setGlobalConfig } from "@openid4vc/oauth2";
import { compactVerify, decodeProtectedHeader, exportJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parsePkcs11Uri } from "../src/key-custody/pkcs11-uri";
import { type ActiveIssuer, activeIssuer, employeePolicyBody, issueCredential } from "./fixtures";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing, viewTokenKey } from "./fixtures/softhsm";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { oid4vpTsWallet, presentWithOid4vpTs, resolveWithOid4vpTs } from "./oid4vp-ts-wallet";

const CERT = "/management/verifier-certificate";
const CSR = `${CERT}/signing-request`;
const ACCESS = `${CERT}/access-certificate`;
const SUBJECT = {
  organisationName: "Webshop Oy",
  organisationIdentifier: "VATFI-12345678",
  country: "FI",
  dnsNames: ["verifier.example.com"],
};
const ORIGIN = "https://shop.example.com";

let t: TestServer;
let hsm: SoftHsmToken;
let issuer: ActiveIssuer;
let accessCa: TestAccessCa;
const wallet = oid4vpTsWallet();

const certificateRow = (tenantId = t.tenantId, environment = "sandbox") =>
  t.server.database.root.prisma.verifierCertificate.findUnique({
    where: { tenantId_environment: { tenantId, environment } },
  });

const sessionCount = () => t.server.database.root.prisma.verificationSession.count();

/** The public JWK of a key in the token, as the server's own provider reads it there. */
const tokenPublicJwk = (providerKeyRef: string) =>
  t.server.deps.keyCustody
    .provider("pkcs11")
    .publicJwk({ provider: "pkcs11", providerKeyRef, privateKeyCipher: null, sealedFor: "" });

const sameKey = (a: JWK, b: JWK) => a.kty === b.kty && a.crv === b.crv && a.x === b.x && a.y === b.y;

/** Verifies a request object with the leaf of its `x5c`; returns the leaf's public JWK. */
async function verifiesWithX5c(jws: string): Promise<JWK> {
  const { x5c } = decodeProtectedHeader(jws);
  expect(x5c?.length).toBeGreaterThan(0);
  const leaf = new X509Certificate(Buffer.from(x5c![0]!, "base64"));
  await compactVerify(jws, leaf.publicKey);
  return exportJWK(leaf.publicKey);
}

/** A signing request whose key is generated in the token; its CSR and key reference. */
async function requestInToken(key = t.adminKey) {
  const r = await call(t, "POST", CSR, { key, body: { ...SUBJECT, keyCustody: { provider: "pkcs11" } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { csrPem: string; keyLocation: { provider: string; keyReference: string } };
}

async function importIssued(csrPem: string) {
  const r = await call(t, "PUT", ACCESS, {
    key: t.adminKey,
    body: { certificateChainPem: await accessCa.issue(csrPem), trustAnchorPem: accessCa.rootPem },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

const start = (body: Record<string, unknown>) =>
  call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy: "hsm-verifier", ...body } });

beforeAll(async () => {
  if (softHsmMissing) return;
  setGlobalConfig({ allowInsecureUrls: true });
  hsm = freshSoftHsmToken("verifiers");
  t = await startTestServer({ pkcs11: hsm.settings });
  issuer = await activeIssuer(t, t.adminKey);
  accessCa = await createTestAccessCa();
  const policy = await call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: employeePolicyBody(issuer, "hsm-verifier", { dcApi: "signed_or_unsigned" }),
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
});
afterAll(async () => {
  await t?.close();
  hsm?.remove();
});

describe.skipIf(softHsmMissing !== null)(
  `verifier request-object keys in a PKCS#11 token (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("VerifierCertificates_CreateSigningRequest with keyCustody pkcs11: the key is generated in the token (sensitive, not extractable) and the CSR verifies with its public key", async () => {
      const request = await requestInToken();
      expect(request.keyLocation.provider).toBe("pkcs11");
      expect(request.keyLocation.keyReference).toMatch(/^pkcs11:token=verifiers;id=(%[0-9a-f]{2}){16}$/);
      const row = await certificateRow();
      expect(row).toMatchObject({
        pendingKeyProvider: "pkcs11",
        pendingProviderKeyRef: request.keyLocation.keyReference,
        pendingPrivateKeyCipher: null,
      });

      const csr = new x509.Pkcs10CertificateRequest(request.csrPem);
      expect(await csr.verify()).toBe(true);
      const csrKey = await exportJWK(await csr.publicKey.export());
      expect(sameKey(csrKey, await tokenPublicJwk(request.keyLocation.keyReference))).toBe(true);

      const view = viewTokenKey(hsm.settings, parsePkcs11Uri(request.keyLocation.keyReference)!.id);
      expect(view.privateKeys).toEqual([{ sign: true, derive: false, sensitive: true, extractable: false }]);

      const got = await call(t, "GET", CERT, { key: t.adminKey });
      expect(got.body.data.signingRequest.keyLocation).toEqual(request.keyLocation);
    });

    it("a new request replaces the pending one and destroys its key in the token", async () => {
      const first = await requestInToken();
      const second = await requestInToken();
      expect(second.keyLocation.keyReference).not.toBe(first.keyLocation.keyReference);
      expect(viewTokenKey(hsm.settings, parsePkcs11Uri(first.keyLocation.keyReference)!.id).objects).toBe(0);
      expect(viewTokenKey(hsm.settings, parsePkcs11Uri(second.keyLocation.keyReference)!.id).objects).toBe(2);
    });

    it("requests at once: one ends up pending and every other one's key is destroyed in the token, none left unreferenced", async () => {
      const made = await Promise.all([requestInToken(), requestInToken(), requestInToken()]);
      const refs = made.map((m) => m.keyLocation.keyReference);
      expect(new Set(refs).size).toBe(3);
      const pending = (await certificateRow())!.pendingProviderKeyRef!;
      expect(refs).toContain(pending);
      for (const ref of refs.filter((r) => r !== pending))
        await vi.waitFor(() => expect(viewTokenKey(hsm.settings, parsePkcs11Uri(ref)!.id).objects).toBe(0));
      expect(viewTokenKey(hsm.settings, parsePkcs11Uri(pending)!.id).objects).toBe(2);
    });

    it("Idempotency-Key: a repeat is answered the same request and makes no second key in the token; the replaced request's key is destroyed once the new one commits", async () => {
      const replaced = await requestInToken();
      const listKeys = () => t.server.deps.keyCustody.provider("pkcs11").listKeys!();
      const body = { ...SUBJECT, keyCustody: { provider: "pkcs11" } };
      const headers = { "idempotency-key": "hsm-signing-request" };
      const first = await call(t, "POST", CSR, { key: t.adminKey, body, headers });
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      const ref = first.body.data.keyLocation.keyReference as string;
      const keys = (await listKeys()).length;
      const again = await call(t, "POST", CSR, { key: t.adminKey, body, headers });
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.body).toEqual(first.body);
      expect((await listKeys()).length).toBe(keys);
      expect((await certificateRow())!.pendingProviderKeyRef).toBe(ref);
      expect(viewTokenKey(hsm.settings, parsePkcs11Uri(ref)!.id).objects).toBe(2);
      const replacedId = parsePkcs11Uri(replaced.keyLocation.keyReference)!.id;
      await vi.waitFor(() => expect(viewTokenKey(hsm.settings, replacedId).objects).toBe(0));
    });

    it("after import, request objects (request_uri, by value, DC API) are signed in the token: each verifies against x5c, whose leaf key is the token key; a wallet (oid4vc-ts) accepts them", async () => {
      const request = await requestInToken();
      const ref = request.keyLocation.keyReference;
      const imported = await importIssued(request.csrPem);
      expect(imported.keyLocation).toEqual({ provider: "pkcs11", keyReference: ref });
      expect(imported.signingRequest).toBeNull();
      const row = await certificateRow();
      expect(row).toMatchObject({ keyProvider: "pkcs11", providerKeyRef: ref, privateKeyCipher: null });
      const tokenKey = await tokenPublicJwk(ref);

      const byReference = await start({});
      expect(byReference.status, JSON.stringify(byReference.body)).toBe(201);
      const fetched = await fetch(byReference.body.data.requestUri);
      expect(fetched.status).toBe(200);
      expect(sameKey(await verifiesWithX5c(await fetched.text()), tokenKey)).toBe(true);

      const byValue = await start({ requestByValue: true });
      expect(byValue.status, JSON.stringify(byValue.body)).toBe(201);
      const jws = new URL(byValue.body.data.authorizationRequestUri).searchParams.get("request")!;
      expect(sameKey(await verifiesWithX5c(jws), tokenKey)).toBe(true);

      const dc = await start({ dcApi: { origins: [ORIGIN] } });
      expect(dc.status, JSON.stringify(dc.body)).toBe(201);
      expect(dc.body.data.dcApiRequest.protocol).toBe("openid4vp-v1-signed");
      expect(sameKey(await verifiesWithX5c(dc.body.data.dcApiRequest.data.request), tokenKey)).toBe(true);

      // A wallet resolves the request (checking the signature with x5c) and its answer verifies.
      const issued = await issueCredential(t, t.adminKey, issuer);
      const session = (await start({})).body.data;
      const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
      expect(resolved.client.prefix).toBe("x509_hash");
      const submitted = await presentWithOid4vpTs(wallet, resolved, {
        credential: issued.credential,
        holderKey: issued.holder.privateKey,
      });
      expect(submitted.response.status).toBe(200);
      const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
      expect(read.body.data.status).toBe("verified");
    });

    it("token unreachable: request object → 503 server_error with Retry-After, signed Verifications_Create and a pkcs11 signing request → 503 KeyCustodyUnavailable, nothing written; recovery after", async () => {
      const request = await requestInToken();
      await importIssued(request.csrPem);
      const pending = await start({});
      expect(pending.status).toBe(201);
      const before = { sessions: await sessionCount(), row: await certificateRow() };

      hsm.takeAway();
      try {
        const fetched = await fetch(pending.body.data.requestUri);
        expect(fetched.status).toBe(503);
        expect(fetched.headers.get("retry-after")).toBe("5");
        expect(fetched.headers.get("cache-control")).toBe("no-store");
        expect((await fetched.json()).error).toBe("server_error");

        for (const body of [{ requestByValue: true }, { dcApi: { origins: [ORIGIN] } }]) {
          const refused = await start(body);
          expect(refused.status, JSON.stringify(refused.body)).toBe(503);
          expect(errorCode(refused)).toBe("KeyCustodyUnavailable");
          expect(refused.headers.get("retry-after")).toBe("5");
        }
        const csr = await call(t, "POST", CSR, {
          key: t.adminKey,
          body: { ...SUBJECT, keyCustody: { provider: "pkcs11" } },
        });
        expect(csr.status).toBe(503);
        expect(errorCode(csr)).toBe("KeyCustodyUnavailable");

        expect(await sessionCount()).toBe(before.sessions);
        expect(await certificateRow()).toEqual(before.row);
      } finally {
        hsm.bringBack();
      }
      // Reconnection is attempted at most once a second.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const again = await fetch(pending.body.data.requestUri);
      expect(again.status).toBe(200);
      await verifiesWithX5c(await again.text());
      expect((await start({ requestByValue: true })).status).toBe(201);
    });

    it("Issuers_GetReadiness: the access certificate's detail says its key is in the token; while the token is unreachable it says so and the certificate is unusable", async () => {
      const request = await requestInToken();
      await importIssued(request.csrPem);
      const access = async () => {
        const r = await call(t, "GET", `/management/issuers/${issuer.issuerId}/readiness`, {
          key: t.adminKey,
        });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.data.relyingPartyCertificates.find(
          (c: { id: string }) => c.id === "access-certificate",
        ) as {
          status: string;
          detail: string;
        };
      };
      const accessDetail = async () => (await access()).detail;
      expect(await accessDetail()).toContain("Its key is held in PKCS#11 token 'verifiers'.");
      expect((await access()).status).toBe("valid");
      hsm.takeAway();
      try {
        const away = await access();
        expect(away.detail).toMatch(/PKCS#11 token 'verifiers', which is unreachable .*cannot be signed/);
        expect(away.status).toBe("unusable");
      } finally {
        hsm.bringBack();
      }
      await expect
        .poll(accessDetail, { timeout: 5_000, interval: 300 })
        .toContain("Its key is held in PKCS#11 token 'verifiers'.");
    });

    it("uploading a software certificate replaces the token key, which is destroyed in the token", async () => {
      const request = await requestInToken();
      await importIssued(request.csrPem);
      const id = parsePkcs11Uri(request.keyLocation.keyReference)!.id;
      expect(viewTokenKey(hsm.settings, id).objects).toBe(2);
      const next = await call(t, "POST", CSR, { key: t.adminKey, body: SUBJECT });
      expect(next.status).toBe(201);
      expect(next.body.data.keyLocation).toEqual({ provider: "software", keyReference: null });
      const imported = await importIssued(next.body.data.csrPem);
      expect(imported.keyLocation).toEqual({ provider: "software", keyReference: null });
      expect(viewTokenKey(hsm.settings, id).objects).toBe(0);
      const session = await start({});
      const jws = await (await fetch(session.body.data.requestUri)).text();
      await verifiesWithX5c(jws);
    });

    it("scope: a key with verification-policies.read only gets 403 and no key is made in the token", async () => {
      const reader = await t.key({ scopes: ["verification-policies.read"] });
      const before = (await t.server.deps.keyCustody.provider("pkcs11").listKeys!()).length;
      const r = await call(t, "POST", CSR, {
        key: reader,
        body: { ...SUBJECT, keyCustody: { provider: "pkcs11" } },
      });
      expect(r.status).toBe(403);
      expect((await t.server.deps.keyCustody.provider("pkcs11").listKeys!()).length).toBe(before);
    });

    it("another tenant or environment sees none of our token key (no pending request, its own software key, import → 409 InvalidState) and gets a token key of its own", async () => {
      const ours = await requestInToken();
      const other = await t.otherTenant();
      const production = await t.key({ environment: "production" });
      for (const key of [other.key, production]) {
        const got = await call(t, "GET", CERT, { key });
        expect(got.status).toBe(200);
        expect(got.body.data.signingRequest).toBeNull();
        expect(got.body.data.keyLocation).toEqual({ provider: "software", keyReference: null });
        const imp = await call(t, "PUT", ACCESS, {
          key,
          body: { certificateChainPem: await accessCa.issue(ours.csrPem), trustAnchorPem: accessCa.rootPem },
        });
        expect(imp.status).toBe(409);
        expect(errorCode(imp)).toBe("InvalidState");
      }
      const theirs = await requestInToken(other.key);
      expect(theirs.keyLocation.keyReference).not.toBe(ours.keyLocation.keyReference);
      expect((await certificateRow())!.pendingProviderKeyRef).toBe(ours.keyLocation.keyReference);
    });
  },
);

describe("verifier keys: keyCustody pkcs11 without a configured token", () => {
  it("→ 400 KeyProviderNotConfigured, no request pending", async () => {
    const plain = await startTestServer();
    try {
      const r = await call(plain, "POST", CSR, {
        key: plain.adminKey,
        body: { ...SUBJECT, keyCustody: { provider: "pkcs11" } },
      });
      expect(r.status).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
      expect(r.body.error.details[0]).toMatchObject({
        code: "KeyProviderNotConfigured",
        target: "keyCustody.provider",
      });
      expect((await call(plain, "GET", CERT, { key: plain.adminKey })).body.data.signingRequest).toBeNull();
      const unknown = await call(plain, "POST", CSR, {
        key: plain.adminKey,
        body: { ...SUBJECT, keyCustody: { provider: "kms" } },
      });
      expect(unknown.status).toBe(400);
    } finally {
      await plain.close();
    }
  });
});
