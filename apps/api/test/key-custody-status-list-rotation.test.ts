// The separate status list signing key (docs/key-custody.md) beyond its creation: the readiness item that
// says where it lives and fails while its token is unreachable, what its tokens carry for a wallet (kid
// in the JWKS, no x5c), and the rotation rule (a retired key stays published until the tokens it signed
// have expired, then the sweeper removes it). With a SoftHSM2 token of this file's own.
import { sweepExpired } from "@cred/core";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePkcs11Uri } from "../src/key-custody/pkcs11-uri";
import { issueCredential } from "./fixtures";
import { issuerInCustody, publishedKeys, statusListTokenOf, verifiesWithJwks } from "./fixtures/key-custody";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing, viewTokenKey } from "./fixtures/softhsm";
import { call, startTestServer, type TestServer } from "./harness";

const ISSUERS = "/management/issuers";

let t: TestServer;
let hsm: SoftHsmToken;

beforeAll(async () => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmToken("cred-slrot");
  t = await startTestServer({ pkcs11: hsm.settings });
});
afterAll(async () => {
  await t?.close();
  hsm?.remove();
});

const statusKeys = (issuerId: string) =>
  t.server.database.root.prisma.issuerKey.findMany({
    where: { issuerId, purpose: "status_list_signing" },
    orderBy: { createdAt: "asc" },
  });

const patch = (issuerId: string, body: Record<string, unknown>) =>
  call(t, "PATCH", `${ISSUERS}/${issuerId}`, { key: t.adminKey, body });

async function readinessItems(issuerId: string) {
  const r = await call(t, "GET", `${ISSUERS}/${issuerId}/readiness`, { key: t.adminKey });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.items as { id: string; status: string; detail: string }[];
}

describe.skipIf(softHsmMissing !== null)(
  `separate status list key: readiness, what its tokens carry, rotation${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("readiness has a status-list-signing-key item saying where the key lives, outstanding while its token is unreachable; none without a separate key", async () => {
      const { active } = await issuerInCustody(t, "pkcs11", { statusListSigning: { separateKey: true } });
      const [key] = await statusKeys(active.issuerId);
      const item = (await readinessItems(active.issuerId)).find((i) => i.id === "status-list-signing-key");
      expect(item).toMatchObject({ status: "satisfied" });
      expect(item!.detail).toContain(key!.kid);
      expect(item!.detail).toContain("PKCS#11 token 'cred-slrot'");

      hsm.takeAway();
      try {
        const away = (await readinessItems(active.issuerId)).find((i) => i.id === "status-list-signing-key");
        expect(away!.status).toBe("outstanding");
        expect(away!.detail).toContain("cannot be used");
      } finally {
        hsm.bringBack();
      }
      await expect
        .poll(
          async () =>
            (await readinessItems(active.issuerId)).find((i) => i.id === "status-list-signing-key")!.status,
          { timeout: 5_000, interval: 300 },
        )
        .toBe("satisfied");

      const plain = await issuerInCustody(t, "pkcs11");
      expect((await readinessItems(plain.active.issuerId)).map((i) => i.id)).not.toContain(
        "status-list-signing-key",
      );
    });

    it("its tokens name it by kid, which the issuer's JWKS resolves; they carry no x5c (the key has no certificate)", async () => {
      const { active } = await issuerInCustody(t, "pkcs11", { statusListSigning: { separateKey: true } });
      const [key] = await statusKeys(active.issuerId);
      const issued = await issueCredential(t, t.adminKey, active);
      const token = await statusListTokenOf(issued.credential);
      const header = decodeProtectedHeader(token);
      expect(header.kid).toBe(key!.kid);
      expect(header.x5c).toBeUndefined();
      expect((await publishedKeys(active)).map((k) => k.kid)).toContain(key!.kid);
      expect(await verifiesWithJwks(active, token)).toBe(true);
    });

    it("rotation (off, then on): the old key signs nothing more and is destroyed in the token, but stays published until its last token expires; the sweeper removes it after", async () => {
      const { active } = await issuerInCustody(t, "pkcs11", { statusListSigning: { separateKey: true } });
      const [first] = await statusKeys(active.issuerId);
      const issued = await issueCredential(t, t.adminKey, active);
      const oldToken = await statusListTokenOf(issued.credential);
      expect(decodeProtectedHeader(oldToken).kid).toBe(first!.kid);

      const ttl = t.server.deps.config.issuance.statusListTtlSeconds;
      const before = Date.now();
      expect((await patch(active.issuerId, { statusListSigning: { separateKey: false } })).status).toBe(200);
      expect((await patch(active.issuerId, { statusListSigning: { separateKey: true } })).status).toBe(200);
      const keys = await statusKeys(active.issuerId);
      expect(keys.map((k) => k.state)).toEqual(["retired", "current"]);
      const [retired, second] = keys;
      // Its private part is gone (destroyed in the token once committed); its public key is kept.
      expect(retired).toMatchObject({ kid: first!.kid, providerKeyRef: null, privateKeyCipher: null });
      await expect
        .poll(() => viewTokenKey(hsm.settings, parsePkcs11Uri(first!.providerKeyRef!)!.id).objects)
        .toBe(0);
      // Published until every token it signed has expired (exp ≤ iat + 2 × ttl).
      const acceptedUntil = retired!.acceptedUntil!.getTime();
      expect(acceptedUntil).toBeGreaterThanOrEqual(before + 2 * ttl * 1000 - 1_000);
      expect(decodeJwt(oldToken).exp! * 1000).toBeLessThanOrEqual(acceptedUntil);
      expect((await publishedKeys(active)).map((k) => k.kid)).toEqual(
        expect.arrayContaining([first!.kid, second!.kid]),
      );
      expect(await verifiesWithJwks(active, oldToken)).toBe(true);
      const newToken = await statusListTokenOf(issued.credential);
      expect(decodeProtectedHeader(newToken).kid).toBe(second!.kid);
      expect(await verifiesWithJwks(active, newToken)).toBe(true);

      // The sweeper leaves it while it is still published, removes it once its tokens have expired.
      await sweepExpired(t.server.deps, { now: new Date(acceptedUntil - 1_000) });
      expect((await statusKeys(active.issuerId)).map((k) => k.kid)).toContain(first!.kid);
      await sweepExpired(t.server.deps, { now: new Date(acceptedUntil + 1_000) });
      expect((await statusKeys(active.issuerId)).map((k) => k.kid)).toEqual([second!.kid]);
    });
  },
);
