import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { buildTrustedListXml, createTestSigner, signTrustedListXml } from "@cred/oid4vc/trust-lists/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startTestServer, type TestServer } from "./harness";

/** The metrics signal of trust sources (docs/api/trust-sources.md): refresh outcomes and the sources' health. */

const TOKEN = randomBytes(24).toString("hex");

let t: TestServer;
let lists: http.Server;
let body: string | null = null;
let url: string;

beforeAll(async () => {
  t = await startTestServer({ metrics: { token: TOKEN } });
  lists = http.createServer((_req, res) => (body ? res.writeHead(200).end(body) : res.writeHead(404).end()));
  await new Promise<void>((resolve) => lists.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(lists.address() as AddressInfo).port}/tsl.xml`;
});
afterAll(async () => {
  await Promise.all([
    t?.close(),
    new Promise<void>((resolve) => (lists ? lists.close(() => resolve()) : resolve())),
  ]);
});

/** The value of one sample of the scrape: `name` with exactly these labels. */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const want = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",")}} `;
  const line = (await res.text()).split("\n").find((l) => l.startsWith(want));
  return line ? Number(line.slice(want.length)) : 0;
}

describe("trust source metrics", () => {
  it("count refreshes by outcome and reason, and show the sources whose refresh fails", async () => {
    const signer = await createTestSigner("CN=Metrics TSL signer", { kind: "ec" });
    body = signTrustedListXml(buildTrustedListXml({ territory: "DE" }), signer);
    const created = await call(t, "POST", "/management/trust-sources", {
      key: t.adminKey,
      body: { kind: "tsl", url, signerCertificates: [signer.certificatePem] },
    });
    expect(created.status).toBe(201);
    expect(await sample("cred_trust_source_refreshes_total", { outcome: "succeeded", reason: "none" })).toBe(
      1,
    );
    expect(await sample("cred_trust_sources", { state: "total" })).toBe(1);
    expect(await sample("cred_trust_sources", { state: "refresh_failing" })).toBe(0);

    body = null;
    const refresh = await call(t, "POST", `/management/trust-sources/${created.body.data.id}/refresh`, {
      key: t.adminKey,
    });
    expect(refresh.status).toBe(422);
    expect(
      await sample("cred_trust_source_refreshes_total", { outcome: "failed", reason: "FetchFailed" }),
    ).toBe(1);
    expect(await sample("cred_trust_sources", { state: "refresh_failing" })).toBe(1);
    expect(await sample("cred_trust_sources", { state: "past_next_update" })).toBe(0);
  });
});
