import { CredApiError, createCredClient, newIdempotencyKey, verifyWebhook } from "@cred/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VALID_CLAIMS } from "./fixtures";
import { type Receiver, receiver, until, webhookHelpers } from "./fixtures/webhooks";
import { startTestServer, type TestServer } from "./harness";
import { redeemOffer } from "./wallet-client";

/** The SDK (packages/sdk) against the real server: both planes, paging, errors, throttling, webhooks. */

let t: TestServer;
const { worker } = webhookHelpers(() => t);

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

/** A client on a fresh tenant's key, recording the `x-ms-request-id` of each response. */
async function client(options: { retry?: false } = {}) {
  const tenant = await t.otherTenant();
  const requestIds: string[] = [];
  const cred = createCredClient({
    baseUrl: t.baseUrl,
    apiKey: tenant.key,
    ...options,
    fetch: async (request) => {
      const response = await fetch(request);
      requestIds.push(response.headers.get("x-ms-request-id") ?? "");
      return response;
    },
  });
  return { cred, requestIds, key: tenant.key };
}

/** Organisation → issuer → configuration → activation, through the SDK's Management calls. */
async function activeIssuer(cred: ReturnType<typeof createCredClient>) {
  const suffix = Date.now().toString(36);
  const { data: organisation } = await cred.post("/management/organisations", {
    body: { reference: `org-${suffix}`, displayName: "SDK Org" },
  });
  const { data: issuer } = await cred.post("/management/issuers", {
    body: {
      organisationReference: organisation.reference,
      displayName: "SDK Issuer",
      display: [{ locale: "en", name: "SDK Issuer" }],
    },
  });
  const { data: configuration } = await cred.post("/management/credential-configurations", {
    body: {
      identifier: `employee-${suffix}`,
      displayName: "Employee badge",
      issuerId: issuer.id,
      schemaId: "employee-v1",
      claims: [
        { path: ["given_name"], type: "string", required: true },
        { path: ["family_name"], type: "string", required: true },
        { path: ["birthdate"], type: "date" },
        { path: ["employee_number"], type: "integer", selectivelyDisclosable: false },
        { path: ["address"], type: "object" },
        { path: ["address", "country"], type: "string" },
      ],
    },
  });
  await cred.post("/management/issuers/{issuerId}/activate", { params: { path: { issuerId: issuer.id } } });
  return { issuerId: issuer.id, configuration: configuration.identifier };
}

describe("@cred/sdk against the server", () => {
  it("issues a transaction (replayed under its Idempotency-Key) that a wallet redeems", async () => {
    const { cred } = await client();
    const issuer = await activeIssuer(cred);
    const idempotencyKey = newIdempotencyKey();
    const body = {
      issuerId: issuer.issuerId,
      credentialConfiguration: issuer.configuration,
      claims: VALID_CLAIMS,
    };
    const { data: tx } = await cred.post("/v1.0/issuance-transactions", { body, idempotencyKey });
    expect(tx.status).toBe("pending");
    const replay = await cred.post("/v1.0/issuance-transactions", { body, idempotencyKey });
    expect(replay.data.id).toBe(tx.id);
    const reused = await cred
      .post("/v1.0/issuance-transactions", { body: { ...body, callbackReference: "x" }, idempotencyKey })
      .catch((e: unknown) => e);
    expect(reused).toMatchObject({ status: 409, code: "IdempotencyKeyReused" });

    const flow = await redeemOffer(tx.credentialOffer!);
    expect(flow.credentialRes.status).toBe(200);
    const { data: completed } = await cred.get("/v1.0/issuance-transactions/{transactionId}", {
      params: { path: { transactionId: tx.id } },
    });
    expect(completed.status).toBe("completed");
    const { data: credential } = await cred.get("/v1.0/credentials/{credentialId}", {
      params: { path: { credentialId: completed.credentialId! } },
    });
    expect(credential.status).toBe("active");
  });

  it("iterates a list across pages", async () => {
    const { cred, requestIds } = await client();
    const issuer = await activeIssuer(cred);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { data } = await cred.post("/v1.0/issuance-transactions", {
        body: {
          issuerId: issuer.issuerId,
          credentialConfiguration: issuer.configuration,
          claims: VALID_CLAIMS,
        },
      });
      created.push(data.id);
    }
    const before = requestIds.length;
    const listed: string[] = [];
    for await (const tx of cred.list("/v1.0/issuance-transactions", {
      params: { query: { limit: 2, issuerId: issuer.issuerId } },
    })) {
      listed.push(tx.id);
    }
    // Newest first, each item once, read in three pages.
    expect(listed).toEqual([...created].reverse());
    expect(requestIds.length - before).toBe(3);
    // Breaking out stops reading pages.
    for await (const _ of cred.list("/management/issuers", { params: { query: { limit: 1 } } })) break;
    expect(requestIds.length - before).toBe(4);
  });

  it("throws CredApiError with code, status, message and the request id on 404 and 400", async () => {
    const { cred, requestIds } = await client();
    const missing = await cred
      .get("/v1.0/issuance-transactions/{transactionId}", {
        params: { path: { transactionId: "itx_01jd5x6c3v8w9y0z1a2b3c4d5e" } },
      })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CredApiError);
    expect(missing).toMatchObject({ status: 404, code: "NotFound" });
    expect((missing as CredApiError).message).not.toBe("");
    expect((missing as CredApiError).requestId).toBe(requestIds.at(-1));

    const invalid = (await cred
      .post("/management/organisations", { body: { reference: "Not a reference!", displayName: "" } })
      .catch((e: unknown) => e)) as CredApiError;
    expect(invalid).toMatchObject({ status: 400, code: "ValidationFailed" });
    expect(invalid.requestId).toBe(requestIds.at(-1));
    expect(invalid.details.map((d) => d.target)).toContain("displayName");
  });

  it("waits out 429 Throttled by its Retry-After, or reports it when told not to retry", async () => {
    const throttled = await startTestServer({ rateLimit: { points: 2, durationSeconds: 1 } });
    try {
      const statuses: number[] = [];
      const patient = createCredClient({
        baseUrl: throttled.baseUrl,
        apiKey: throttled.adminKey,
        fetch: async (request) => {
          const response = await fetch(request);
          statuses.push(response.status);
          return response;
        },
      });
      // Six at once on a budget of two a second: at least one answer is a 429, waited out and retried.
      const pages = await Promise.all(Array.from({ length: 6 }, () => patient.get("/management/issuers")));
      expect(pages.every((page) => Array.isArray(page.data))).toBe(true);
      expect(statuses).toContain(429);

      const impatient = createCredClient({
        baseUrl: throttled.baseUrl,
        apiKey: await throttled.key(),
        retry: false,
      });
      const errors = await Promise.all(
        Array.from({ length: 6 }, () =>
          impatient.get("/management/issuers").then(
            () => null,
            (e: unknown) => e,
          ),
        ),
      );
      const error = errors.find(Boolean) as CredApiError;
      expect(error).toBeInstanceOf(CredApiError);
      expect(error).toMatchObject({ status: 429, code: "Throttled" });
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
    } finally {
      await throttled.close();
    }
  });

  describe("webhooks", () => {
    let rx: Receiver;
    beforeAll(async () => {
      rx = await receiver();
    });
    afterAll(() => rx.close());

    it("verifies a real signed delivery", async () => {
      const { cred } = await client();
      const issuer = await activeIssuer(cred);
      const { data: subscription } = await cred.post("/management/webhooks", {
        body: { url: rx.url, events: ["issuance.transaction.created"] },
      });
      const { data: tx } = await cred.post("/v1.0/issuance-transactions", {
        body: {
          issuerId: issuer.issuerId,
          credentialConfiguration: issuer.configuration,
          claims: VALID_CLAIMS,
        },
      });
      await worker().runOnce();
      const delivery = await until("the delivery", async () =>
        rx.received.find((r) => r.body.includes(tx.id)),
      );
      const event = verifyWebhook(subscription.secret, delivery.body, delivery.headers);
      expect(event.type).toBe("issuance.transaction.created");
      expect(event.data).toMatchObject({ transactionId: tx.id });
      expect(() =>
        verifyWebhook(subscription.secret, delivery.body.replace(tx.id, "itx_x"), delivery.headers),
      ).toThrow();
    });
  });
});
