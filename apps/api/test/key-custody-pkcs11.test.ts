// Key custody in a PKCS#11 token (docs/key-custody.md), with a real SoftHSM2 token of this file's own.

import { createRequire } from "node:module";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import { decodeProtectedHeader } from "jose";
import type pkcs11js from "pkcs11js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePkcs11Uri } from "../src/key-custody/pkcs11-uri";
import { type ActiveIssuer, issueCredential } from "./fixtures";
import {
  credentialRequestReady,
  issuerInCustody,
  publishedKeys,
  statusListTokenOf,
  verifiesWithJwks,
} from "./fixtures/key-custody";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing } from "./fixtures/softhsm";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const ISSUERS = "/management/issuers";

let t: TestServer;
let hsm: SoftHsmToken;

beforeAll(async () => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmToken();
  t = await startTestServer({ pkcs11: hsm.settings });
});
afterAll(async () => {
  await t?.close();
  hsm?.remove();
});

/** An active issuer whose keys live in `custody` (its first signing key made there). */
const issuerIn = async (custody: "pkcs11" | "software"): Promise<ActiveIssuer> =>
  (await issuerInCustody(t, custody)).active;

const keyRows = (issuerId: string) =>
  t.server.database.root.prisma.issuerKey.findMany({ where: { issuerId }, orderBy: { createdAt: "asc" } });

async function readiness(issuerId: string) {
  const r = await call(t, "GET", `${ISSUERS}/${issuerId}/readiness`, { key: t.adminKey });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.items.find((i: { id: string }) => i.id === "signing-key");
}

/** The PKCS#11 binding, loaded when a test needs it (an optional addon: the file skips without it). */
const binding = () => createRequire(import.meta.url)("pkcs11js") as typeof pkcs11js;

/** A session on the test's token through a module instance of the test's own (the server's stays initialised). */
function withTokenSession<T>(use: (module: pkcs11js.PKCS11, session: pkcs11js.Handle) => T): T {
  const module = new (binding().PKCS11)();
  module.load(hsm.settings.modulePath);
  try {
    module.C_Initialize();
  } catch (error) {
    if (!String((error as Error).message).startsWith("CKR_CRYPTOKI_ALREADY_INITIALIZED")) throw error;
  }
  const slot = module
    .C_GetSlotList(true)
    .find((s) => module.C_GetTokenInfo(s).label.trim() === hsm.settings.tokenLabel)!;
  const session = module.C_OpenSession(slot, binding().CKF_SERIAL_SESSION);
  try {
    return use(module, session);
  } finally {
    module.C_CloseSession(session);
  }
}

function findObjects(module: pkcs11js.PKCS11, session: pkcs11js.Handle, id: Buffer, objectClass: number) {
  module.C_FindObjectsInit(session, [
    { type: binding().CKA_CLASS, value: objectClass },
    { type: binding().CKA_ID, value: id },
  ]);
  const found = module.C_FindObjects(session, 10);
  module.C_FindObjectsFinal(session);
  return found;
}

/** The private key objects of a key row's PKCS#11 reference, as the token's user sees them. */
function privateKeyObjects(providerKeyRef: string) {
  const location = parsePkcs11Uri(providerKeyRef)!;
  return withTokenSession((module, session) => {
    try {
      module.C_Login(session, binding().CKU_USER, hsm.settings.pin);
    } catch (error) {
      if (!String((error as Error).message).startsWith("CKR_USER_ALREADY_LOGGED_IN")) throw error;
    }
    return findObjects(module, session, location.id, binding().CKO_PRIVATE_KEY).map((handle) => ({
      attributes: module.C_GetAttributeValue(session, handle, [
        { type: binding().CKA_SENSITIVE },
        { type: binding().CKA_EXTRACTABLE },
        { type: binding().CKA_ALWAYS_SENSITIVE },
        { type: binding().CKA_NEVER_EXTRACTABLE },
      ]),
      /** What reading the private value (CKA_VALUE) gives: the token's refusal, or the value. */
      valueRead: (() => {
        try {
          return { value: module.C_GetAttributeValue(session, handle, [{ type: binding().CKA_VALUE }]) };
        } catch (error) {
          return { refused: (error as Error).message };
        }
      })(),
    }));
  });
}

describe.skipIf(softHsmMissing !== null)(
  `issuer keys in a PKCS#11 token (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("issues with a key generated in the token: the credential and the status list token verify with the published JWKS", async () => {
      const active = await issuerIn("pkcs11");
      const [row] = await keyRows(active.issuerId);
      expect(row).toMatchObject({ provider: "pkcs11", privateKeyCipher: null, state: "current" });
      expect(row!.providerKeyRef).toMatch(/^pkcs11:token=cred-test;id=(%[0-9a-f]{2}){16}$/);

      const { credential } = await issueCredential(t, t.adminKey, active);
      const issuerJws = credential.split("~")[0]!;
      expect(decodeProtectedHeader(issuerJws).kid).toBe(row!.kid);
      expect(await verifiesWithJwks(active, issuerJws)).toBe(true);
      const statusListToken = await statusListTokenOf(credential);
      expect(decodeProtectedHeader(statusListToken).kid).toBe(row!.kid);
      expect(await verifiesWithJwks(active, statusListToken)).toBe(true);

      const item = await readiness(active.issuerId);
      expect(item.status).toBe("satisfied");
      expect(item.detail).toContain("PKCS#11 token 'cred-test'");
    });

    it("the private key cannot be read from the token: sensitive, never extractable, CKA_VALUE refused", async () => {
      const active = await issuerIn("pkcs11");
      const [row] = await keyRows(active.issuerId);
      const [key] = privateKeyObjects(row!.providerKeyRef!);
      expect(key).toBeDefined();
      const [sensitive, extractable, alwaysSensitive, neverExtractable] = key!.attributes.map(
        (a) => a.value[0],
      );
      expect({ sensitive, extractable, alwaysSensitive, neverExtractable }).toEqual({
        sensitive: 1,
        extractable: 0,
        alwaysSensitive: 1,
        neverExtractable: 1,
      });
      expect(key!.valueRead).toEqual({ refused: expect.stringMatching(/^CKR_ATTRIBUTE_SENSITIVE/) });
      // Nor is anything of it in the database.
      expect(JSON.stringify(row)).not.toMatch(/"d"/);
    });

    it("rotates an HSM key: next key prepared in the token, its CSR signed there, certified, switched; the replaced key is destroyed", async () => {
      const ca = await createTestCertificateAuthority();
      const active = await issuerIn("pkcs11");
      const before = await issueCredential(t, t.adminKey, active);
      const [first] = await keyRows(active.issuerId);

      const prepared = await call(t, "POST", `${ISSUERS}/${active.issuerId}/next-signing-key`, {
        key: t.adminKey,
      });
      expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
      const next = prepared.body.data.nextSigningKey;
      const nextRow = (await keyRows(active.issuerId)).find((k) => k.state === "next")!;
      expect(nextRow).toMatchObject({ kid: next.kid, provider: "pkcs11", privateKeyCipher: null });

      const csr = await call(t, "GET", `${ISSUERS}/${active.issuerId}/certificate-signing-request?key=next`, {
        key: t.adminKey,
      });
      expect(csr.status, JSON.stringify(csr.body)).toBe(200);
      const request = new x509.Pkcs10CertificateRequest(csr.body.data.certificateSigningRequestPem);
      expect(await request.verify()).toBe(true); // signed by the key in the token
      const requested = await crypto.subtle.exportKey("jwk", await request.publicKey.export());
      expect({ x: requested.x, y: requested.y }).toEqual({ x: next.publicJwk.x, y: next.publicJwk.y });
      const chain = await ca.certify(csr.body.data.certificateSigningRequestPem);
      const set = await call(t, "PUT", `${ISSUERS}/${active.issuerId}/signing-certificate`, {
        key: t.adminKey,
        body: { key: "next", certificateChainPem: chain.chainPem },
      });
      expect(set.status, JSON.stringify(set.body)).toBe(200);

      const rotated = await call(t, "POST", `${ISSUERS}/${active.issuerId}/rotate-signing-key`, {
        key: t.adminKey,
        body: { replacedKey: "keep" },
      });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      expect(rotated.body.data.signingKey.kid).toBe(next.kid);
      // Wallets see what they saw with software keys: both keys in the JWKS, x5c on the new one.
      const jwks = await publishedKeys(active);
      expect(jwks.map((k) => k.kid)).toEqual([next.kid, first!.kid]);
      expect(jwks[0]!.x5c).toHaveLength(1);
      expect(await verifiesWithJwks(active, before.credential.split("~")[0]!)).toBe(true);

      const after = await issueCredential(t, t.adminKey, active);
      const jws = after.credential.split("~")[0]!;
      expect(decodeProtectedHeader(jws)).toMatchObject({ kid: next.kid, x5c: [expect.any(String)] });
      expect(await verifiesWithJwks(active, jws)).toBe(true);
      expect(await verifiesWithJwks(active, await statusListTokenOf(after.credential))).toBe(true);

      // The replaced key's private part is gone from the token (after the commit) and from its row.
      const rows = await keyRows(active.issuerId);
      expect(rows.find((k) => k.kid === first!.kid)).toMatchObject({
        state: "retired",
        providerKeyRef: null,
      });
      await expect.poll(() => privateKeyObjects(first!.providerKeyRef!).length).toBe(0);
    });

    it("a discarded next key is destroyed in the token", async () => {
      const active = await issuerIn("pkcs11");
      const prepared = await call(t, "POST", `${ISSUERS}/${active.issuerId}/next-signing-key`, {
        key: t.adminKey,
      });
      expect(prepared.status).toBe(200);
      const next = (await keyRows(active.issuerId)).find((k) => k.state === "next")!;
      expect(privateKeyObjects(next.providerKeyRef!)).toHaveLength(1);
      const discarded = await call(t, "DELETE", `${ISSUERS}/${active.issuerId}/next-signing-key`, {
        key: t.adminKey,
      });
      expect(discarded.status).toBe(200);
      expect(discarded.body.data.nextSigningKey).toBeNull();
      await expect.poll(() => privateKeyObjects(next.providerKeyRef!).length).toBe(0);
    });

    it("moves a software issuer's next key into the token through the normal rotation", async () => {
      const active = await issuerIn("software");
      const [sealed] = await keyRows(active.issuerId);
      expect(sealed).toMatchObject({ provider: "software", providerKeyRef: null });
      const moved = await call(t, "PATCH", `${ISSUERS}/${active.issuerId}`, {
        key: t.adminKey,
        body: { keyCustody: { provider: "pkcs11" } },
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.data.keyCustody).toMatchObject({ provider: "pkcs11", tokenLabel: "cred-test" });
      expect(moved.body.data.signingKey.kid).toBe(sealed!.kid); // the current key stays where it is

      const rotated = await call(t, "POST", `${ISSUERS}/${active.issuerId}/rotate-signing-key`, {
        key: t.adminKey,
        body: { replacedKey: "keep" },
      });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const current = (await keyRows(active.issuerId)).find((k) => k.state === "current")!;
      expect(current).toMatchObject({ provider: "pkcs11", privateKeyCipher: null });
      const { credential } = await issueCredential(t, t.adminKey, active);
      expect(decodeProtectedHeader(credential.split("~")[0]!).kid).toBe(current.kid);
      expect(await verifiesWithJwks(active, credential.split("~")[0]!)).toBe(true);
    });

    it("refuses cleanly while the token is unreachable (wallet: server_error 503 with Retry-After; management: 503 KeyCustodyUnavailable), writes nothing, and recovers", async () => {
      const active = await issuerIn("pkcs11");
      // A wallet has its access token and c_nonce, and sends its proof when the token goes away.
      const { transactionId, ask } = await credentialRequestReady(t, active);

      hsm.takeAway();
      try {
        const refused = await ask();
        expect(refused.status, JSON.stringify(refused.body)).toBe(503);
        expect(refused.body.error).toBe("server_error");
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(refused.headers.get("cache-control")).toBe("no-store");

        const prepare = await call(t, "POST", `${ISSUERS}/${active.issuerId}/next-signing-key`, {
          key: t.adminKey,
        });
        expect(prepare.status, JSON.stringify(prepare.body)).toBe(503);
        expect(errorCode(prepare)).toBe("KeyCustodyUnavailable");
        expect(Number(prepare.headers.get("retry-after"))).toBeGreaterThan(0);
        const csr = await call(t, "GET", `${ISSUERS}/${active.issuerId}/certificate-signing-request`, {
          key: t.adminKey,
        });
        expect(csr.status).toBe(503);
        expect(errorCode(csr)).toBe("KeyCustodyUnavailable");
        const item = await readiness(active.issuerId);
        expect(item.status).toBe("outstanding");
        expect(item.detail).toMatch(/PKCS#11 token 'cred-test'.*unreachable/);
        // Nothing half-written: no next key, the transaction still pending.
        expect((await keyRows(active.issuerId)).map((k) => k.state)).toEqual(["current"]);
        const pending = await call(t, "GET", `/v1.0/issuance-transactions/${transactionId}`, {
          key: t.adminKey,
        });
        expect(pending.body.data.status).not.toBe("completed");
      } finally {
        hsm.bringBack();
      }

      // The same request, once the token is back (after the reconnect pause), is answered.
      await expect.poll(async () => (await ask()).status, { timeout: 10_000, interval: 500 }).toBe(200);
      expect((await readiness(active.issuerId)).status).toBe("satisfied");
      const completed = await call(t, "GET", `/v1.0/issuance-transactions/${transactionId}`, {
        key: t.adminKey,
      });
      expect(completed.body.data.status).toBe("completed");
    });
  },
);

describe("key custody without a PKCS#11 token configured", () => {
  it("400 ValidationFailed (KeyProviderNotConfigured) for pkcs11 custody; software stays the default", async () => {
    const plain = await startTestServer();
    try {
      const org = await call(plain, "POST", "/management/organisations", {
        key: plain.adminKey,
        body: { reference: "plain-org", displayName: "Plain" },
      });
      const refused = await call(plain, "POST", ISSUERS, {
        key: plain.adminKey,
        body: {
          organisationReference: org.body.data.reference,
          displayName: "x",
          keyCustody: { provider: "pkcs11" },
        },
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(errorCode(refused)).toBe("ValidationFailed");
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({ code: "KeyProviderNotConfigured", target: "keyCustody.provider" }),
      ]);
      const created = await call(plain, "POST", ISSUERS, {
        key: plain.adminKey,
        body: { organisationReference: org.body.data.reference, displayName: "x" },
      });
      expect(created.status).toBe(201);
      expect(created.body.data.keyCustody).toEqual({
        provider: "software",
        tokenLabel: null,
        purposes: {
          credentialSigning: { provider: "software", tokenLabel: null },
          statusListSigning: { provider: "software", tokenLabel: null },
          credentialRequestEncryption: { provider: "software", tokenLabel: null },
        },
      });
      const patched = await call(plain, "PATCH", `${ISSUERS}/${created.body.data.id}`, {
        key: plain.adminKey,
        body: { keyCustody: { provider: "pkcs11" } },
      });
      expect(patched.status).toBe(400);
      expect(patched.body.error.details[0].code).toBe("KeyProviderNotConfigured");
    } finally {
      await plain.close();
    }
  });
});
