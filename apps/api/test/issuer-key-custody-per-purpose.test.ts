// Key custody per key purpose (docs/key-custody.md, issue #27): one issuer's credential signing keys in a
// SoftHSM2 token of this file's own and its request encryption keys in software, and the reverse; the
// token named by its label; readiness per purpose; refusals that write nothing.

import { listIssuerKeysAcrossTenants } from "@cred/core";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendEncrypted, type WalletFacingIssuer } from "./fixtures/encrypted-credential-request";
import { issueCredential } from "./fixtures/issuer";
import {
  type CustodyRequest,
  issuerInCustody,
  statusListTokenOf,
  verifiesWithJwks,
} from "./fixtures/key-custody";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing } from "./fixtures/softhsm";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { walletEndpoints } from "./wallet-client";

const ISSUERS = "/management/issuers";
const LABEL = "cred-purpose";

let t: TestServer;
let hsm: SoftHsmToken;

beforeAll(async () => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmToken(LABEL);
  t = await startTestServer({ pkcs11: hsm.settings });
});
afterAll(async () => {
  await t?.close();
  hsm?.remove();
});

/** Credential signing in the token, everything else (request encryption) in software. */
const SIGNING_IN_TOKEN = {
  provider: "software",
  purposes: { credentialSigning: { provider: "pkcs11", tokenLabel: LABEL } },
};
/** Everything in the token (by its label), except credential signing in software. */
const SIGNING_IN_SOFTWARE = {
  provider: "pkcs11",
  tokenLabel: LABEL,
  purposes: { credentialSigning: { provider: "software" } },
};

const inToken = { provider: "pkcs11", tokenLabel: LABEL };
const inSoftware = { provider: "software", tokenLabel: null };

/** An active issuer in `custody` that offers request encryption (and `extra` settings). */
async function issuerIn(custody: CustodyRequest, extra: Record<string, unknown> = {}) {
  const { active, created } = await issuerInCustody(t, custody, {
    credentialEncryption: { required: false },
    ...extra,
  });
  const issuer: WalletFacingIssuer = { active, endpoints: await walletEndpoints(active.credentialIssuer) };
  return { issuer, created };
}

const keyRows = (issuerId: string) =>
  t.server.database.root.prisma.issuerKey.findMany({ where: { issuerId }, orderBy: { createdAt: "asc" } });

/** Where each of the issuer's keys is held: `<purpose>/<state>` → provider. */
async function providersOf(issuerId: string) {
  return Object.fromEntries(
    (await keyRows(issuerId)).map((row) => [`${row.purpose}/${row.state}`, row.provider ?? "software"]),
  );
}

async function readinessItems(issuerId: string): Promise<Record<string, { status: string; detail: string }>> {
  const r = await call(t, "GET", `${ISSUERS}/${issuerId}/readiness`, { key: t.adminKey });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Object.fromEntries(r.body.data.items.map((i: { id: string }) => [i.id, i]));
}

const tokenKeyCount = async () => (await t.server.deps.keyCustody.provider("pkcs11").listKeys!()).length;

/** Issues a credential the plain way and one through an encrypted request; both verify with the JWKS. */
async function issuesBothWays(issuer: WalletFacingIssuer) {
  const { credential } = await issueCredential(t, t.adminKey, issuer.active);
  const jws = credential.split("~")[0]!;
  expect(await verifiesWithJwks(issuer.active, jws)).toBe(true);
  const statusListToken = await statusListTokenOf(credential);
  expect(await verifiesWithJwks(issuer.active, statusListToken)).toBe(true);
  const encrypted = await sendEncrypted(t, issuer);
  expect(encrypted.status, encrypted.text).toBe(200);
  const viaEncrypted = JSON.parse(encrypted.text).credentials[0].credential as string;
  expect(await verifiesWithJwks(issuer.active, viaEncrypted.split("~")[0]!)).toBe(true);
  return { jws, statusListToken };
}

describe.skipIf(softHsmMissing !== null)(
  `issuer key custody per key purpose (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("credential signing in the token, request encryption in software: keys made there, issuance and status list verify with the JWKS, encrypted requests decrypt, readiness says where each key lives", async () => {
      const { issuer, created } = await issuerIn(SIGNING_IN_TOKEN);
      expect(created.keyCustody).toEqual({
        provider: "software",
        tokenLabel: null,
        purposes: {
          credentialSigning: inToken,
          statusListSigning: inSoftware,
          credentialRequestEncryption: inSoftware,
        },
      });
      const id = issuer.active.issuerId;
      const rows = await keyRows(id);
      const signing = rows.find((r) => r.purpose === "credential_signing")!;
      expect(signing).toMatchObject({ provider: "pkcs11", privateKeyCipher: null });
      expect(signing.providerKeyRef).toMatch(new RegExp(`^pkcs11:token=${LABEL};id=`));
      expect(rows.find((r) => r.purpose === "credential_request_encryption")).toMatchObject({
        provider: "software",
        providerKeyRef: null,
      });

      const { jws, statusListToken } = await issuesBothWays(issuer);
      expect(decodeProtectedHeader(jws).kid).toBe(signing.kid);
      expect(decodeProtectedHeader(statusListToken).kid).toBe(signing.kid);

      const items = await readinessItems(id);
      expect(items["signing-key"]).toMatchObject({ status: "satisfied" });
      expect(items["signing-key"]!.detail).toContain(`PKCS#11 token '${LABEL}'`);
      expect(items["credential-request-encryption-key"]).toMatchObject({ status: "satisfied" });
      expect(items["credential-request-encryption-key"]!.detail).toContain("the database");

      // Issuers_Get shows the same.
      const got = await call(t, "GET", `${ISSUERS}/${id}`, { key: t.adminKey });
      expect(got.body.data.keyCustody).toEqual(created.keyCustody);
    });

    it("the reverse (signing in software, request encryption and the status list key in the token by its label): the same end to end", async () => {
      const { issuer, created } = await issuerIn(SIGNING_IN_SOFTWARE, {
        statusListSigning: { separateKey: true },
      });
      expect(created.keyCustody).toEqual({
        provider: "pkcs11",
        tokenLabel: LABEL,
        purposes: {
          credentialSigning: inSoftware,
          statusListSigning: inToken,
          credentialRequestEncryption: inToken,
        },
      });
      const id = issuer.active.issuerId;
      expect(await providersOf(id)).toEqual({
        "credential_signing/current": "software",
        "status_list_signing/current": "pkcs11",
        "credential_request_encryption/current": "pkcs11",
      });
      const statusKey = (await keyRows(id)).find((r) => r.purpose === "status_list_signing")!;
      const { statusListToken } = await issuesBothWays(issuer);
      expect(decodeProtectedHeader(statusListToken).kid).toBe(statusKey.kid);

      const items = await readinessItems(id);
      expect(items["signing-key"]!.detail).toContain("the database");
      expect(items["status-list-signing-key"]!.detail).toContain(`PKCS#11 token '${LABEL}'`);
      expect(items["credential-request-encryption-key"]!.detail).toContain(`PKCS#11 token '${LABEL}'`);
      expect(Object.values(items).every((item) => item.status === "satisfied")).toBe(true);

      // What `pnpm cli issuer-keys list --provider …` lists: each key with its purpose.
      const listed = async (provider: string) =>
        (await listIssuerKeysAcrossTenants(t.server.database.root, { provider }))
          .filter((key) => key.issuerId === id)
          .map((key) => key.purpose)
          .sort();
      expect(await listed("pkcs11")).toEqual(["credential_request_encryption", "status_list_signing"]);
      expect(await listed("software")).toEqual(["credential_signing"]);
    });

    it("rotation keeps each purpose's custody: prepared and rotated signing keys and rotated request encryption keys are made where their purpose says", async () => {
      for (const [custody, signing, encryption] of [
        [SIGNING_IN_TOKEN, "pkcs11", "software"],
        [SIGNING_IN_SOFTWARE, "software", "pkcs11"],
      ] as const) {
        const { issuer } = await issuerIn(custody);
        const id = issuer.active.issuerId;
        const prepared = await call(t, "POST", `${ISSUERS}/${id}/next-signing-key`, { key: t.adminKey });
        expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
        expect((await providersOf(id))["credential_signing/next"]).toBe(signing);
        for (const path of ["rotate-signing-key", "rotate-signing-key", "rotate-credential-encryption-key"]) {
          const rotated = await call(t, "POST", `${ISSUERS}/${id}/${path}`, { key: t.adminKey, body: {} });
          expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
        }
        const rows = await keyRows(id);
        const current = (purpose: string) =>
          rows.find((r) => r.purpose === purpose && r.state === "current")!;
        expect(current("credential_signing").provider).toBe(signing);
        expect(current("credential_request_encryption").provider).toBe(encryption);
        expect(rows.filter((r) => r.purpose === "credential_signing").length).toBe(3);
        await issuesBothWays(issuer);
      }
    });

    it("changing one purpose's custody by PATCH moves no existing key; the next key of that purpose is made in the new custody", async () => {
      const { issuer } = await issuerIn("software");
      const id = issuer.active.issuerId;
      const patched = await call(t, "PATCH", `${ISSUERS}/${id}`, {
        key: t.adminKey,
        body: {
          keyCustody: {
            provider: "software",
            purposes: { credentialRequestEncryption: { provider: "pkcs11" } },
          },
        },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      // No label given: the platform's token, recorded.
      expect(patched.body.data.keyCustody.purposes.credentialRequestEncryption).toEqual(inToken);
      expect(await providersOf(id)).toEqual({
        "credential_signing/current": "software",
        "credential_request_encryption/current": "software",
      });
      const rotated = await call(t, "POST", `${ISSUERS}/${id}/rotate-credential-encryption-key`, {
        key: t.adminKey,
        body: { overlapSeconds: 0 },
      });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const signed = await call(t, "POST", `${ISSUERS}/${id}/rotate-signing-key`, {
        key: t.adminKey,
        body: {},
      });
      expect(signed.status).toBe(200);
      expect(await providersOf(id)).toMatchObject({
        "credential_signing/current": "software",
        "credential_request_encryption/current": "pkcs11",
      });
      await issuesBothWays(issuer);

      // `{ provider }` alone still means every purpose.
      const all = await call(t, "PATCH", `${ISSUERS}/${id}`, {
        key: t.adminKey,
        body: { keyCustody: { provider: "software" } },
      });
      expect(all.body.data.keyCustody.purposes).toEqual({
        credentialSigning: inSoftware,
        statusListSigning: inSoftware,
        credentialRequestEncryption: inSoftware,
      });
    });

    it("the token unreachable: only the items of the purposes held there fail, saying so; back again, they are satisfied", async () => {
      const first = (await issuerIn(SIGNING_IN_TOKEN)).issuer.active.issuerId;
      const second = (await issuerIn(SIGNING_IN_SOFTWARE)).issuer.active.issuerId;
      hsm.takeAway();
      try {
        const a = await readinessItems(first);
        expect(a["signing-key"]!.status).toBe("outstanding");
        expect(a["signing-key"]!.detail).toMatch(new RegExp(`PKCS#11 token '${LABEL}'.*unreachable`));
        expect(a["credential-request-encryption-key"]!.status).toBe("satisfied");
        const b = await readinessItems(second);
        expect(b["signing-key"]!.status).toBe("satisfied");
        expect(b["credential-request-encryption-key"]!.status).toBe("outstanding");
        expect(b["credential-request-encryption-key"]!.detail).toMatch(
          new RegExp(`PKCS#11 token '${LABEL}'.*unreachable.*cannot be decrypted`),
        );
      } finally {
        hsm.bringBack();
      }
      await expect
        .poll(async () => (await readinessItems(second))["credential-request-encryption-key"]!.status, {
          timeout: 10_000,
          interval: 500,
        })
        .toBe("satisfied");
      expect((await readinessItems(first))["signing-key"]!.status).toBe("satisfied");
    });

    it("an unknown token label, or a label with software, is 400 ValidationFailed / KeyTokenNotConfigured naming the member; nothing is written, no key is made", async () => {
      const { issuer } = await issuerIn("software");
      const id = issuer.active.issuerId;
      const created = (await call(t, "GET", `${ISSUERS}/${id}`, { key: t.adminKey })).body.data;
      const org = created.organisationReference as string;
      const issuersBefore = await t.server.database.root.prisma.issuer.count();
      const tokenKeysBefore = await tokenKeyCount();
      const cases = [
        [{ provider: "pkcs11", tokenLabel: "no-such-token" }, "keyCustody.tokenLabel"],
        [
          {
            provider: "software",
            purposes: { statusListSigning: { provider: "pkcs11", tokenLabel: "other" } },
          },
          "keyCustody.purposes.statusListSigning.tokenLabel",
        ],
        [
          {
            provider: "software",
            purposes: { credentialSigning: { provider: "software", tokenLabel: LABEL } },
          },
          "keyCustody.purposes.credentialSigning.tokenLabel",
        ],
      ] as const;
      for (const [keyCustody, target] of cases) {
        const createdRefused = await call(t, "POST", ISSUERS, {
          key: t.adminKey,
          body: { organisationReference: org, displayName: "refused", keyCustody },
        });
        const patchRefused = await call(t, "PATCH", `${ISSUERS}/${id}`, {
          key: t.adminKey,
          body: { keyCustody, displayName: "renamed" },
        });
        for (const refused of [createdRefused, patchRefused]) {
          expect(refused.status, JSON.stringify(refused.body)).toBe(400);
          expect(errorCode(refused)).toBe("ValidationFailed");
          expect(refused.body.error.details).toEqual([
            expect.objectContaining({ code: "KeyTokenNotConfigured", target }),
          ]);
        }
      }
      expect(await t.server.database.root.prisma.issuer.count()).toBe(issuersBefore);
      expect(await tokenKeyCount()).toBe(tokenKeysBefore);
      const after = await call(t, "GET", `${ISSUERS}/${id}`, { key: t.adminKey });
      expect(after.body.data.displayName).toBe(created.displayName);
      expect(after.body.data.keyCustody).toEqual(created.keyCustody);
      expect(after.body.data.updatedAt).toBe(created.updatedAt);
    });

    it("scope: a key with issuers.read only gets 403 and the custody is unchanged; another tenant gets 404", async () => {
      const { issuer } = await issuerIn("software");
      const id = issuer.active.issuerId;
      const created = (await call(t, "GET", `${ISSUERS}/${id}`, { key: t.adminKey })).body.data;
      const body = { keyCustody: SIGNING_IN_TOKEN };
      const reader = await t.key({ scopes: ["issuers.read"] });
      const forbidden = await call(t, "PATCH", `${ISSUERS}/${id}`, { key: reader, body });
      expect(forbidden.status).toBe(403);
      const other = await t.otherTenant();
      const foreign = await call(t, "PATCH", `${ISSUERS}/${id}`, { key: other.key, body });
      expect(foreign.status).toBe(404);
      expect(errorCode(foreign)).toBe("NotFound");
      const foreignReadiness = await call(t, "GET", `${ISSUERS}/${id}/readiness`, { key: other.key });
      expect(foreignReadiness.status).toBe(404);
      const after = await call(t, "GET", `${ISSUERS}/${id}`, { key: t.adminKey });
      expect(after.body.data.keyCustody).toEqual(created.keyCustody);
      expect(after.body.data.updatedAt).toBe(created.updatedAt);
    });
  },
);

describe.skipIf(softHsmMissing !== null)(
  `verifier key custody by token label (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    const CSR = "/management/verifier-certificate/signing-request";
    const SUBJECT = {
      organisationName: "Webshop Oy",
      organisationIdentifier: "VATFI-12345678",
      country: "FI",
      dnsNames: ["verifier.example.com"],
    };

    it("an access-certificate signing request names the token by its label; an unknown label (or one with software) is 400 KeyTokenNotConfigured and no key is made", async () => {
      const other = await t.otherTenant();
      const tokenKeysBefore = await tokenKeyCount();
      for (const keyCustody of [
        { provider: "pkcs11", tokenLabel: "no-such-token" },
        { provider: "software", tokenLabel: LABEL },
      ]) {
        const refused = await call(t, "POST", CSR, { key: other.key, body: { ...SUBJECT, keyCustody } });
        expect(refused.status, JSON.stringify(refused.body)).toBe(400);
        expect(refused.body.error.details).toEqual([
          expect.objectContaining({ code: "KeyTokenNotConfigured", target: "keyCustody.tokenLabel" }),
        ]);
      }
      expect(await tokenKeyCount()).toBe(tokenKeysBefore);
      const pending = await call(t, "GET", "/management/verifier-certificate", { key: other.key });
      expect(pending.body.data.signingRequest).toBeNull();

      const made = await call(t, "POST", CSR, {
        key: other.key,
        body: { ...SUBJECT, keyCustody: { provider: "pkcs11", tokenLabel: LABEL } },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.data.keyLocation.keyReference).toMatch(new RegExp(`^pkcs11:token=${LABEL};id=`));
      expect(await tokenKeyCount()).toBe(tokenKeysBefore + 1);
    });
  },
);

describe("key custody per purpose without a configured token", () => {
  it("a purpose in pkcs11 → 400 KeyProviderNotConfigured naming the purpose; nothing is created", async () => {
    const plain = await startTestServer();
    try {
      const org = await call(plain, "POST", "/management/organisations", {
        key: plain.adminKey,
        body: { reference: "purpose-org", displayName: "Purpose org" },
      });
      expect(org.status).toBe(201);
      const refused = await call(plain, "POST", ISSUERS, {
        key: plain.adminKey,
        body: {
          organisationReference: "purpose-org",
          displayName: "x",
          keyCustody: {
            provider: "software",
            purposes: { credentialRequestEncryption: { provider: "pkcs11" } },
          },
        },
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({
          code: "KeyProviderNotConfigured",
          target: "keyCustody.purposes.credentialRequestEncryption.provider",
        }),
      ]);
      expect(await plain.server.database.root.prisma.issuer.count()).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
