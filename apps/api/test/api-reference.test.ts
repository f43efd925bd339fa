import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";

/** The interactive reference (/docs) and openapi.json's introduction, as a first-time integrator meets them. */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

describe("API reference", () => {
  it("is titled with the product's name, in the page and in its top bar", async () => {
    const page = await fetch(`${t.baseUrl}/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Credential Platform API reference</title>");
    expect(html).not.toContain("Swagger UI</title>");
    const initializer = await (await fetch(`${t.baseUrl}/docs/static/swagger-initializer.js`)).text();
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer);
    expect(Buffer.from(logo![1]!, "base64").toString("utf8")).toContain("Credential Platform API");
  });

  it("opens with an introduction to authentication, api-version, idempotency, errors and paging", async () => {
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      info: { title: string; description: string };
    };
    expect(document.info.title).toBe("Credential Platform API");
    const intro = document.info.description;
    for (const heading of [
      "Authentication",
      "API version",
      "Idempotency",
      "Errors",
      "Paging",
      "Throttling",
    ]) {
      expect(intro).toContain(`## ${heading}`);
    }
    expect(intro).toContain("Authorization: ApiKey <key>");
    expect(intro).toContain("api-version=2026-08-30");
    expect(intro).toContain("Idempotency-Key");
    expect(intro).toContain('{ "error": { "code", "message", "requestId", "details"? } }');
    expect(intro).toContain("nextCursor");
    expect(intro).toContain("docs/quickstart.md");
  });
});
