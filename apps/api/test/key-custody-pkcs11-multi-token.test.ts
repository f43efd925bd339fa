// Several tokens of one PKCS#11 module in one process (docs/key-custody.md, issue #27): two SoftHSM2
// tokens under one token directory, the server given both (PKCS11_TOKEN_LABELS); an issuer's credential
// signing keys in one token and its status list key in the other, each found in its own token; an
// unknown label refused; the second token gone fails only the purposes whose keys it holds.

import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePkcs11Uri } from "../src/key-custody/pkcs11-uri";
import { issueCredential } from "./fixtures/issuer";
import { issuerInCustody, statusListTokenOf, verifiesWithJwks } from "./fixtures/key-custody";
import { freshSoftHsmTokens, type SoftHsmTokens, softHsmMissing, viewTokenKey } from "./fixtures/softhsm";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const ISSUERS = "/management/issuers";
const SIGNING_TOKEN = "cred-issuers";
const STATUS_TOKEN = "cred-status-lists";

let t: TestServer;
let hsm: SoftHsmTokens;

beforeAll(async () => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmTokens([SIGNING_TOKEN, STATUS_TOKEN]);
  t = await startTestServer({ pkcs11: hsm.settings });
});
afterAll(async () => {
  await t?.close();
  hsm?.remove();
});

/** Credential signing in the first token, the status list key in the second, the rest in software. */
const SPLIT = {
  provider: "software",
  purposes: {
    credentialSigning: { provider: "pkcs11", tokenLabel: SIGNING_TOKEN },
    statusListSigning: { provider: "pkcs11", tokenLabel: STATUS_TOKEN },
  },
};

const keyRows = (issuerId: string) =>
  t.server.database.root.prisma.issuerKey.findMany({ where: { issuerId }, orderBy: { createdAt: "asc" } });

async function readinessItems(issuerId: string): Promise<Record<string, { status: string; detail: string }>> {
  const r = await call(t, "GET", `${ISSUERS}/${issuerId}/readiness`, { key: t.adminKey });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Object.fromEntries(r.body.data.items.map((i: { id: string }) => [i.id, i]));
}

/** How many private keys with the key row's CKA_ID each token holds, looked up in each token itself. */
function privateKeysPerToken(providerKeyRef: string | null) {
  const location = parsePkcs11Uri(providerKeyRef ?? "");
  expect(location, providerKeyRef ?? "no reference").not.toBeNull();
  const id = Buffer.from(location!.id);
  return {
    [SIGNING_TOKEN]: viewTokenKey(hsm.token(SIGNING_TOKEN), id).privateKeys.length,
    [STATUS_TOKEN]: viewTokenKey(hsm.token(STATUS_TOKEN), id).privateKeys.length,
  };
}

describe.skipIf(softHsmMissing !== null)(
  `several tokens of one PKCS#11 module (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("credential signing keys in one token, the status list key in the other: each key is made in its token, issuance and the status list token verify with the published JWKS, readiness names each token", async () => {
      const { active, created } = await issuerInCustody(t, SPLIT, {
        statusListSigning: { separateKey: true },
      });
      expect(created.keyCustody.purposes).toMatchObject({
        credentialSigning: { provider: "pkcs11", tokenLabel: SIGNING_TOKEN },
        statusListSigning: { provider: "pkcs11", tokenLabel: STATUS_TOKEN },
      });
      const rows = await keyRows(active.issuerId);
      const signing = rows.find((r) => r.purpose === "credential_signing")!;
      const statusKey = rows.find((r) => r.purpose === "status_list_signing")!;
      expect(signing.providerKeyRef).toMatch(new RegExp(`^pkcs11:token=${SIGNING_TOKEN};id=`));
      expect(statusKey.providerKeyRef).toMatch(new RegExp(`^pkcs11:token=${STATUS_TOKEN};id=`));
      expect(privateKeysPerToken(signing.providerKeyRef)).toEqual({ [SIGNING_TOKEN]: 1, [STATUS_TOKEN]: 0 });
      expect(privateKeysPerToken(statusKey.providerKeyRef)).toEqual({
        [SIGNING_TOKEN]: 0,
        [STATUS_TOKEN]: 1,
      });

      const { credential } = await issueCredential(t, t.adminKey, active);
      const jws = credential.split("~")[0]!;
      expect(decodeProtectedHeader(jws).kid).toBe(signing.kid);
      expect(await verifiesWithJwks(active, jws)).toBe(true);
      const statusListToken = await statusListTokenOf(credential);
      expect(decodeProtectedHeader(statusListToken).kid).toBe(statusKey.kid);
      expect(await verifiesWithJwks(active, statusListToken)).toBe(true);

      const items = await readinessItems(active.issuerId);
      expect(items["signing-key"]).toMatchObject({ status: "satisfied" });
      expect(items["signing-key"]!.detail).toContain(`PKCS#11 token '${SIGNING_TOKEN}'`);
      expect(items["status-list-signing-key"]).toMatchObject({ status: "satisfied" });
      expect(items["status-list-signing-key"]!.detail).toContain(`PKCS#11 token '${STATUS_TOKEN}'`);

      // `issuer-keys list` sees the keys of both tokens, each under its token's label.
      const listed = (await t.server.deps.keyCustody.provider("pkcs11").listKeys!()).map(
        (key) => key.providerKeyRef,
      );
      expect(listed).toEqual(expect.arrayContaining([signing.providerKeyRef, statusKey.providerKeyRef]));
    });

    it("a label the process is not configured with is 400 ValidationFailed / KeyTokenNotConfigured; both configured labels are accepted", async () => {
      const org = await call(t, "POST", "/management/organisations", {
        key: t.adminKey,
        body: { reference: "multi-token-refused", displayName: "Refused" },
      });
      expect(org.status, JSON.stringify(org.body)).toBe(201);
      const before = await t.server.database.root.prisma.issuer.count();
      const refused = await call(t, "POST", ISSUERS, {
        key: t.adminKey,
        body: {
          organisationReference: "multi-token-refused",
          displayName: "refused",
          keyCustody: {
            provider: "software",
            purposes: { statusListSigning: { provider: "pkcs11", tokenLabel: "cred-no-such-token" } },
          },
        },
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(errorCode(refused)).toBe("ValidationFailed");
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({
          code: "KeyTokenNotConfigured",
          target: "keyCustody.purposes.statusListSigning.tokenLabel",
        }),
      ]);
      expect(await t.server.database.root.prisma.issuer.count()).toBe(before);
      for (const tokenLabel of [SIGNING_TOKEN, STATUS_TOKEN]) {
        const { created } = await issuerInCustody(t, { provider: "pkcs11", tokenLabel });
        expect(created.keyCustody.tokenLabel).toBe(tokenLabel);
        const [row] = await keyRows(created.id);
        expect(row!.providerKeyRef).toMatch(new RegExp(`^pkcs11:token=${tokenLabel};id=`));
      }
    });

    it("the second token gone: only the purposes whose keys it holds fail (readiness, 503); credentials are still signed in the first; it is used again once back", async () => {
      const { active } = await issuerInCustody(t, SPLIT, { statusListSigning: { separateKey: true } });
      hsm.takeAwayToken(STATUS_TOKEN);
      try {
        await expect
          .poll(async () => (await readinessItems(active.issuerId))["status-list-signing-key"]!.status, {
            timeout: 10_000,
            interval: 500,
          })
          .not.toBe("satisfied");
        const items = await readinessItems(active.issuerId);
        expect(items["status-list-signing-key"]!.detail).toContain(`PKCS#11 token '${STATUS_TOKEN}'`);
        expect(items["signing-key"]).toMatchObject({ status: "satisfied" });
        const { credential } = await issueCredential(t, t.adminKey, active);
        expect(await verifiesWithJwks(active, credential.split("~")[0]!)).toBe(true);
        const { status } = JSON.parse(
          Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString(),
        ) as { status: { status_list: { uri: string } } };
        const statusList = await fetch(status.status_list.uri);
        expect(statusList.status).toBe(503);
        await statusList.body?.cancel();
      } finally {
        hsm.bringBackToken(STATUS_TOKEN);
      }
      await expect
        .poll(async () => (await readinessItems(active.issuerId))["status-list-signing-key"]!.status, {
          timeout: 10_000,
          interval: 500,
        })
        .toBe("satisfied");
    });
  },
);
