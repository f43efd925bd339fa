import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startTestServer, type TestServer } from "./harness";

/** The first step of a draining shutdown (serve.ts, SHUTDOWN_DRAIN_SECONDS): readiness off, serving on. */
describe("draining before shutdown", () => {
  let app: TestServer;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(async () => {
    await app?.close();
  });

  it("/readyz answers 503 draining while every other route is still served", async () => {
    expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
    app.server.beginDraining();
    const ready = await fetch(`${app.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining" });
    expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
    const list = await call(app, "GET", "/management/organisations", { key: app.adminKey });
    expect(list.status).toBe(200);
  });
});
