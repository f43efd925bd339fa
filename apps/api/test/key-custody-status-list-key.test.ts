// A separate status list signing key per issuer (docs/key-custody.md), as swiyu separates it: made in the
// issuer's key custody (here a SoftHSM2 token of this file's own, and software), published in the
// issuer's JWKS, signing the status list tokens while the credential key signs credentials.

import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePkcs11Uri } from "../src/key-custody/pkcs11-uri";
import { issueCredential, policyTrusting, presentTo } from "./fixtures";
import { issuerInCustody, publishedKeys, statusListTokenOf, verifiesWithJwks } from "./fixtures/key-custody";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing, viewTokenKey } from "./fixtures/softhsm";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const ISSUERS = "/management/issuers";

let t: TestServer;
let hsm: SoftHsmToken;

beforeAll(async () => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmToken("cred-status");
  t = await startTestServer({ pkcs11: hsm.settings });
});
afterAll(async () => {
  await t?.close();
  hsm?.remove();
});

const issuerIn = (custody: "pkcs11" | "software", extra: Record<string, unknown> = {}) =>
  issuerInCustody(t, custody, extra);

/** The issuer's status list signing keys in use (a retired one stays published until its tokens expire). */
const statusKeyRows = (issuerId: string) =>
  t.server.database.root.prisma.issuerKey.findMany({
    where: { issuerId, purpose: "status_list_signing", state: { not: "retired" } },
  });

const patch = (issuerId: string, body: Record<string, unknown>) =>
  call(t, "PATCH", `${ISSUERS}/${issuerId}`, { key: t.adminKey, body });

describe.skipIf(softHsmMissing !== null)(
  `a separate status list signing key${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("is made in the token at creation; status list tokens are signed with it, credentials with the credential key; both verify with the published JWKS and in a verification", async () => {
      const { active, created } = await issuerIn("pkcs11", { statusListSigning: { separateKey: true } });
      const [row] = await statusKeyRows(active.issuerId);
      expect(row).toMatchObject({ provider: "pkcs11", privateKeyCipher: null, state: "current" });
      expect(created.statusListSigning).toEqual({
        separateKey: true,
        publicJwk: expect.objectContaining({ kid: row!.kid, kty: "EC", crv: "P-256" }),
      });
      expect(created.statusListSigning.publicJwk.d).toBeUndefined();
      expect(viewTokenKey(hsm.settings, parsePkcs11Uri(row!.providerKeyRef!)!.id).privateKeys).toEqual([
        { sign: true, derive: false, sensitive: true, extractable: false },
      ]);
      expect((await publishedKeys(active)).map((k) => k.kid)).toEqual([created.signingKey.kid, row!.kid]);

      const issued = await issueCredential(t, t.adminKey, active);
      const credentialJws = issued.credential.split("~")[0]!;
      expect(decodeProtectedHeader(credentialJws).kid).toBe(created.signingKey.kid);
      const statusListToken = await statusListTokenOf(issued.credential);
      expect(decodeProtectedHeader(statusListToken)).toMatchObject({ kid: row!.kid, typ: "statuslist+jwt" });
      expect(await verifiesWithJwks(active, statusListToken)).toBe(true);
      expect(await verifiesWithJwks(active, credentialJws)).toBe(true);

      // The platform's verifier checks the status with the separate key, and sees a revocation.
      const policy = `sl-policy-${active.issuerId}`;
      await policyTrusting(t, t.adminKey, policy, active);
      expect((await presentTo(t, t.adminKey, policy, issued)).status).toBe("verified");
      const revoked = await call(t, "POST", `/v1.0/credentials/${issued.credentialId}/revoke`, {
        key: t.adminKey,
      });
      expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
      const afterRevocation = await presentTo(t, t.adminKey, policy, issued);
      expect(afterRevocation.status).not.toBe("verified");
    });

    it("is added to and removed from a software issuer by PATCH; the status list token follows at once and the key is only a status list key", async () => {
      const { active, created } = await issuerIn("software");
      expect(created.statusListSigning).toEqual({ separateKey: false, publicJwk: null });
      const issued = await issueCredential(t, t.adminKey, active);
      expect(decodeProtectedHeader(await statusListTokenOf(issued.credential)).kid).toBe(
        created.signingKey.kid,
      );

      const on = await patch(active.issuerId, { statusListSigning: { separateKey: true } });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
      const [row] = await statusKeyRows(active.issuerId);
      expect(row).toMatchObject({ provider: "software", providerKeyRef: null });
      expect(on.body.data.statusListSigning.publicJwk.kid).toBe(row!.kid);
      const separate = await statusListTokenOf(issued.credential);
      expect(decodeProtectedHeader(separate).kid).toBe(row!.kid);
      expect(await verifiesWithJwks(active, separate)).toBe(true);
      // Asking again changes nothing.
      const again = await patch(active.issuerId, { statusListSigning: { separateKey: true } });
      expect(again.body.data.statusListSigning.publicJwk.kid).toBe(row!.kid);
      expect(again.body.data.updatedAt).toBe(on.body.data.updatedAt);

      const off = await patch(active.issuerId, { statusListSigning: { separateKey: false } });
      expect(off.status, JSON.stringify(off.body)).toBe(200);
      expect(off.body.data.statusListSigning).toEqual({ separateKey: false, publicJwk: null });
      expect(await statusKeyRows(active.issuerId)).toEqual([]);
      // The retired key stays published until the tokens it signed have expired (key-custody-status-list-rotation).
      expect((await publishedKeys(active)).map((k) => k.kid)).toEqual([created.signingKey.kid, row!.kid]);
      expect(decodeProtectedHeader(await statusListTokenOf(issued.credential)).kid).toBe(
        created.signingKey.kid,
      );
    });

    it("a token status list key is destroyed in the token when dropped; while the token is unreachable, adding one is 503 KeyCustodyUnavailable and writes nothing", async () => {
      const { active } = await issuerIn("pkcs11", { statusListSigning: { separateKey: true } });
      const [row] = await statusKeyRows(active.issuerId);
      const id = parsePkcs11Uri(row!.providerKeyRef!)!.id;
      expect((await patch(active.issuerId, { statusListSigning: { separateKey: false } })).status).toBe(200);
      await expect.poll(() => viewTokenKey(hsm.settings, id).objects).toBe(0);

      const before = await call(t, "GET", `${ISSUERS}/${active.issuerId}`, { key: t.adminKey });
      hsm.takeAway();
      try {
        const refused = await patch(active.issuerId, { statusListSigning: { separateKey: true } });
        expect(refused.status, JSON.stringify(refused.body)).toBe(503);
        expect(errorCode(refused)).toBe("KeyCustodyUnavailable");
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await statusKeyRows(active.issuerId)).toEqual([]);
        const after = await call(t, "GET", `${ISSUERS}/${active.issuerId}`, { key: t.adminKey });
        expect(after.body.data).toEqual(before.body.data);
      } finally {
        hsm.bringBack();
      }
      await expect
        .poll(
          async () => (await patch(active.issuerId, { statusListSigning: { separateKey: true } })).status,
          { timeout: 10_000, interval: 500 },
        )
        .toBe(200);
      expect(await statusKeyRows(active.issuerId)).toHaveLength(1);
    });
  },
);
