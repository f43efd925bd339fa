import { createHash } from "node:crypto";
import { verifyRequestObject } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestIssuer, verifierFixture } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/** What the request object carries beyond the query: verifier_info and transaction data (OpenID4VP §5.1). */

let t: TestServer;
let issuerA: TestIssuer;
let issuerB: TestIssuer;

const { setUp, issue, policyBody, createPolicy, start, read, present, reasonCodes } = verifierFixture();

beforeAll(async () => {
  ({ t, issuerA, issuerB } = await setUp());
});
afterAll(() => t?.close());

describe("verifier_info (OpenID4VP §5.1)", () => {
  const registration = {
    format: "registration_cert",
    data: "eyJhbGciOiJFUzI1NiIsInR5cCI6InJjLXJwK2p3dCJ9.eyJzdWIiOiJzaG9wIn0.c2ln",
    credentialIds: ["pid"],
  };
  const policy = { format: "urn:example:privacy-policy", data: { uri: "https://shop.example.com/privacy" } };

  it("sends the policy's attestations about the verifier in the request object", async () => {
    await createPolicy(policyBody("pid-attested", { verifierInfo: [registration, policy] }));
    const session = await start("pid-attested");
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    const { payload } = await verifyRequestObject(await (await fetch(session.requestUri)).text(), {
      clientId,
    });
    expect(payload.verifier_info).toEqual([
      { format: registration.format, data: registration.data, credential_ids: ["pid"] },
      policy,
    ]);
    const stored = await call(t, "GET", "/management/verification-policies/pid-attested", {
      key: t.adminKey,
    });
    expect(stored.body.data.rules.verifierInfo).toEqual([registration, policy]);
    // A policy without it sends none.
    const plain = await start("pid-plain");
    const plainId = new URL(plain.authorizationRequestUri).searchParams.get("client_id")!;
    const plainObject = await verifyRequestObject(await (await fetch(plain.requestUri)).text(), {
      clientId: plainId,
    });
    expect(plainObject.payload.verifier_info).toBeUndefined();
  });

  it("400 for an entry naming no credential of the policy, without format, or too large", async () => {
    for (const verifierInfo of [
      [{ ...registration, credentialIds: ["nope"] }],
      [{ data: "x" }],
      [{ format: "big", data: "x".repeat(16_385) }],
      [1, 2, 3].map((n) => ({ format: `f${n}`, data: "x".repeat(12_000) })),
      [{ ...registration, credentialIds: ["pid", "pid"] }],
      [],
    ]) {
      const r = await call(t, "POST", "/management/verification-policies", {
        key: t.adminKey,
        body: policyBody(`pid-attested-bad-${Math.random().toString(36).slice(2, 8)}`, { verifierInfo }),
      });
      expect([r.status, errorCode(r)], JSON.stringify(verifierInfo).slice(0, 80)).toEqual([
        400,
        "ValidationFailed",
      ]);
    }
  });
});

describe("transaction data (OpenID4VP §5.1, §8.4, Appendix B.3.3)", () => {
  const payment = {
    type: "https://pay.example/payment",
    credentialIds: ["pid"],
    fields: { amount: "42.00", currency: "EUR", payee: "Acme Shop" },
  };

  it("sends it in the request object and verifies the hash the wallet signs in the key binding JWT", async () => {
    const session = await start("pid-plain", t.adminKey, { transactionData: [payment] });
    expect((await read(session.id)).transactionData).toEqual([payment]);
    const wallet = await present(session, { credential: (await issue()).credential });
    const sent = wallet.request.transaction_data as string[];
    expect(sent).toHaveLength(1);
    expect(JSON.parse(Buffer.from(sent[0]!, "base64url").toString("utf8"))).toEqual({
      ...payment.fields,
      type: payment.type,
      credential_ids: ["pid"],
    });
    const decided = await read(session.id);
    expect(decided.status, JSON.stringify(decided.result)).toBe("verified");
    expect(decided.result.credentials[0].checks.transactionData).toBe("passed");
  });

  it("rejects, with no claims in the result, a presentation that does not authorise it, authorises something else, or with another hash alg", async () => {
    const hash = (value: string) => createHash("sha256").update(value).digest("base64url");
    // What the request sends for `payment`: the hash the wallet must sign.
    const sent = Buffer.from(
      JSON.stringify({ ...payment.fields, type: payment.type, credential_ids: payment.credentialIds }),
    ).toString("base64url");
    for (const [overrides, code] of [
      [{ transaction_data_hashes: undefined }, "transaction_data_not_authorized"],
      [{ transaction_data_hashes: [hash("something else")] }, "transaction_data_mismatch"],
      [
        { transaction_data_hashes: [hash(sent), hash(sent)], transaction_data_hashes_alg: "sha-512" },
        "transaction_data_hash_alg",
      ],
    ] as const) {
      const session = await start("pid-plain", t.adminKey, { transactionData: [payment] });
      await present(session, { credential: (await issue()).credential, keyBindingOverrides: overrides });
      const decided = await read(session.id);
      expect(decided.status).toBe("rejected");
      expect(reasonCodes(decided)).toContain(code);
      expect(decided.result.credentials).toEqual([]);
    }
  });

  it("discards a presentation whose key binding JWT authorises transaction data the request did not carry", async () => {
    const session = await start("pid-plain");
    await present(session, {
      credential: (await issue()).credential,
      keyBindingOverrides: {
        transaction_data_hashes: [createHash("sha256").update("x").digest("base64url")],
      },
    });
    const decided = await read(session.id);
    expect(decided.status).toBe("rejected");
    expect(reasonCodes(decided)).toContain("transaction_data_mismatch");
  });

  describe("with a policy of two credentials", () => {
    const hash = (value: string) => createHash("sha256").update(value).digest("base64url");
    const encoded = (item: { type: string; credentialIds: string[]; fields?: Record<string, unknown> }) =>
      Buffer.from(
        JSON.stringify({ ...item.fields, type: item.type, credential_ids: item.credentialIds }),
      ).toString("base64url");
    let credentials: string[];

    beforeAll(async () => {
      await createPolicy({
        identifier: "pid-and-other",
        displayName: "pid-and-other",
        credentials: [
          {
            id: "pid",
            credentialTypes: [issuerA.vct],
            trustedIssuers: [{ issuerId: issuerA.issuerId }],
            // A policy has to ask for some claim (one asking for none is refused).
            requiredClaims: [["given_name"]],
          },
          { id: "other", credentialTypes: [issuerB.vct], trustedIssuers: [{ issuerId: issuerB.issuerId }] },
        ],
      });
      credentials = [(await issue()).credential, (await issue({ issuer: issuerB })).credential];
    });

    async function decide(
      item: typeof payment,
      keyBindingOverridesFor?: Record<string, Record<string, unknown>>,
    ) {
      const session = await start("pid-and-other", t.adminKey, { transactionData: [item] });
      await present(session, {
        credential: credentials,
        ...(keyBindingOverridesFor ? { keyBindingOverridesFor } : {}),
      });
      return read(session.id);
    }

    it("verifies an item naming both credentials when one of them authorises it", async () => {
      const decided = await decide({ ...payment, credentialIds: ["pid", "other"] });
      expect(decided.status, JSON.stringify(decided.result)).toBe("verified");
      expect(decided.result.credentials).toHaveLength(2);
    });

    it("rejects an item authorised by both credentials (the wallet must use one)", async () => {
      const item = { ...payment, credentialIds: ["pid", "other"] };
      const decided = await decide(item, { other: { transaction_data_hashes: [hash(encoded(item))] } });
      expect(decided.status).toBe("rejected");
      expect(reasonCodes(decided)).toContain("transaction_data_authorized_twice");
      expect(decided.result.credentials).toEqual([]);
    });

    it("rejects a hash under a credential the item does not name", async () => {
      const item = { ...payment, credentialIds: ["other"] };
      const decided = await decide(item, {
        pid: { transaction_data_hashes: [hash(encoded(item))] },
        other: { transaction_data_hashes: undefined },
      });
      expect(decided.status).toBe("rejected");
      expect(reasonCodes(decided)).toContain("transaction_data_mismatch");
      expect(decided.result.credentials).toEqual([]);
    });
  });

  it("400 for items naming no credential of the policy, one without holder binding, or reserved fields", async () => {
    await createPolicy(policyBody("pid-unbound", {}, { holderBindingRequired: false }));
    const attempts: [string, Record<string, unknown>][] = [
      ["pid-plain", { ...payment, credentialIds: ["nope"] }],
      ["pid-unbound", payment],
      ["pid-plain", { ...payment, fields: { credential_ids: ["x"] } }],
      ["pid-plain", { ...payment, fields: { transaction_data_hashes_alg: ["sha-512"] } }],
      ["pid-plain", { ...payment, credentialIds: [] }],
      ["pid-plain", { type: "", credentialIds: ["pid"] }],
    ];
    for (const [policy, item] of attempts) {
      const r = await call(t, "POST", "/v1.0/verifications", {
        key: t.adminKey,
        body: { policy, transactionData: [item] },
      });
      expect([r.status, errorCode(r)], JSON.stringify(item)).toEqual([400, "ValidationFailed"]);
    }
  });
});
