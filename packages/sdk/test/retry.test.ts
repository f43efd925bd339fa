import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CredApiError, createCredClient, retryAfterMs } from "../src/index.js";

/** A loopback server answering each request with what `answer(n)` says (n counts from 1). */
async function scriptedServer(
  answer: (n: number) => { status: number; headers?: Record<string, string>; body?: unknown },
) {
  const seen: { method: string; url: string; body: string; at: number; idempotencyKey?: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        idempotencyKey: req.headers["idempotency-key"] as string | undefined,
      });
      const a = answer(seen.length);
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      res.end(a.body === undefined ? "" : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

const throttled = (retryAfter: string) => ({
  status: 429,
  headers: { "retry-after": retryAfter, "x-ms-request-id": "req-429" },
  body: { error: { code: "Throttled", message: "Too many requests.", requestId: "req-429" } },
});
const created = { status: 201, headers: { "x-ms-request-id": "req-ok" }, body: { data: { id: "itx_1" } } };
const body = { issuerId: "iss_1", credentialConfiguration: "card", claims: { given_name: "Erika" } };

describe("429 retries", () => {
  it("waits the Retry-After, then sends the same request again (body and Idempotency-Key included)", async () => {
    const api = await scriptedServer((n) => (n === 1 ? throttled("1") : created));
    const cred = createCredClient({ baseUrl: api.baseUrl, apiKey: "k" });
    const result = await cred.post("/v1.0/issuance-transactions", { body, idempotencyKey: "idem-1" });
    expect(result.data.id).toBe("itx_1");
    expect(api.seen).toHaveLength(2);
    expect(api.seen[1]!.at - api.seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(JSON.parse(api.seen[1]!.body)).toEqual(body);
    expect(api.seen.map((s) => s.idempotencyKey)).toEqual(["idem-1", "idem-1"]);
  });

  it("gives up after maxRetries and throws the 429 as CredApiError", async () => {
    const api = await scriptedServer(() => throttled("0"));
    const cred = createCredClient({ baseUrl: api.baseUrl, apiKey: "k", retry: { maxRetries: 3 } });
    const error = await cred.get("/v1.0/issuance-transactions").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredApiError);
    expect(error).toMatchObject({
      status: 429,
      code: "Throttled",
      requestId: "req-429",
      retryAfterSeconds: 0,
    });
    expect(api.seen).toHaveLength(4);
  });

  it("does not wait a Retry-After longer than maxDelayMs", async () => {
    const api = await scriptedServer(() => throttled("3600"));
    const cred = createCredClient({ baseUrl: api.baseUrl, apiKey: "k" });
    const started = Date.now();
    await expect(cred.get("/v1.0/issuance-transactions")).rejects.toMatchObject({
      code: "Throttled",
      retryAfterSeconds: 3600,
    });
    expect(api.seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("retry: false returns the first 429", async () => {
    const api = await scriptedServer((n) => (n === 1 ? throttled("0") : created));
    const cred = createCredClient({ baseUrl: api.baseUrl, apiKey: "k", retry: false });
    await expect(cred.get("/v1.0/issuance-transactions")).rejects.toMatchObject({ status: 429 });
    expect(api.seen).toHaveLength(1);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("2", now)).toBe(2000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:03 GMT", now)).toBe(3000);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});

describe("requests and errors", () => {
  it("sends the API key, and api-version on Management paths only", async () => {
    const api = await scriptedServer(() => ({ status: 200, body: { data: [], nextCursor: null } }));
    const cred = createCredClient({ baseUrl: api.baseUrl, apiKey: "sk_test" });
    await cred.get("/management/issuers");
    await cred.get("/v1.0/issuance-transactions");
    expect(api.seen.map((s) => s.url)).toEqual([
      "/management/issuers?api-version=2026-08-30",
      "/v1.0/issuance-transactions",
    ]);
  });

  it("a response without the error envelope is UnexpectedResponse, with the header's request id", async () => {
    const api = await scriptedServer(() => ({ status: 502, headers: { "x-ms-request-id": "req-502" } }));
    const cred = createCredClient({ baseUrl: api.baseUrl, apiKey: "k" });
    await expect(cred.get("/v1.0/issuance-transactions")).rejects.toMatchObject({
      name: "CredApiError",
      status: 502,
      code: "UnexpectedResponse",
      requestId: "req-502",
    });
  });

  it("list() follows nextCursor until it is null, keeping the other query members", async () => {
    const pages = [
      { data: [{ id: "a" }, { id: "b" }], nextCursor: "c1" },
      { data: [{ id: "c" }], nextCursor: "c2" },
      { data: [], nextCursor: null },
    ];
    const api = await scriptedServer((n) => ({ status: 200, body: pages[n - 1] }));
    const cred = createCredClient({ baseUrl: api.baseUrl, apiKey: "k" });
    const ids: string[] = [];
    for await (const item of cred.list("/v1.0/issuance-transactions", { params: { query: { limit: 2 } } })) {
      ids.push(item.id);
    }
    expect(ids).toEqual(["a", "b", "c"]);
    expect(api.seen.map((s) => s.url)).toEqual([
      "/v1.0/issuance-transactions?limit=2",
      "/v1.0/issuance-transactions?limit=2&cursor=c1",
      "/v1.0/issuance-transactions?limit=2&cursor=c2",
    ]);
  });
});
