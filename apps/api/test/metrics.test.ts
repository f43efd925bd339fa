import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { type Receiver, receiver, webhookHelpers } from "./fixtures/webhooks";
import { call, startTestServer, type TestServer } from "./harness";
import { walletEndpoints } from "./wallet-client";

/**
 * `/metrics` (docs/operations.md): never served without METRICS_PORT or METRICS_TOKEN, the counters a
 * full issuance and verification move, a format Prometheus' own `promtool` accepts, and labels that
 * never carry an id.
 */

const TOKEN = randomBytes(24).toString("hex");

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (comments skipped). */
function parse(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`unparsable sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key, raw] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
        labels[key!] = raw!.replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The sum of `name`'s samples whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

async function scrape(url: string, token: string | undefined = TOKEN) {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("not served unless configured", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t?.close());

  it("answers 404 on the API's port when neither METRICS_PORT nor METRICS_TOKEN is set", async () => {
    const r = await scrape(`${t.baseUrl}/metrics`);
    expect(r.status).toBe(404);
    expect(r.text).not.toContain("cred_http_requests_total");
  });
});

describe("behind METRICS_TOKEN on the API's port", () => {
  let t: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    t = await startTestServer({ metrics: { token: TOKEN } });
    rx = await receiver();
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });
  const { worker, subscribe } = webhookHelpers(() => t);

  it("refuses a scrape without the token or with another one (401, Bearer challenge)", async () => {
    const none = await scrape(`${t.baseUrl}/metrics`, "");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(none.text).not.toContain("cred_");
    const wrong = await scrape(`${t.baseUrl}/metrics`, randomBytes(24).toString("hex"));
    expect(wrong.status).toBe(401);
    const apiKey = await fetch(`${t.baseUrl}/metrics`, {
      headers: { authorization: `ApiKey ${t.adminKey}` },
    });
    expect(apiKey.status).toBe(401);
  });

  it("counts a full issuance, a verification, status changes, a wallet error and webhook attempts", async () => {
    const active = await activeIssuer(t, t.adminKey);
    await policyTrusting(t, t.adminKey, "metrics-badge", active);
    await subscribe(t.adminKey, rx.url);
    rx.answer(() => 503);

    const before = parse((await scrape(`${t.baseUrl}/metrics`)).text);
    const issued = await issueCredential(t, t.adminKey, active);
    const session = await presentTo(t, t.adminKey, "metrics-badge", issued);
    expect(session.status).toBe("verified");
    for (const change of ["suspend", "reinstate"]) {
      const changed = await call(t, "POST", `/v1.0/credentials/${issued.credentialId}/${change}`, {
        key: t.adminKey,
      });
      expect(changed.status).toBe(200);
    }
    const revoked = await call(t, "POST", `/v1.0/credentials/${issued.credentialId}/revoke`, {
      key: t.adminKey,
    });
    expect(revoked.status).toBe(200);
    const endpoints = await walletEndpoints(active.credentialIssuer);
    const badGrant = await fetch(endpoints.token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
        "pre-authorized_code": "no-such-code",
      }),
    });
    expect(badGrant.status).toBe(400);
    expect(((await badGrant.json()) as { error: string }).error).toBe("invalid_grant");
    await worker().runOnce();

    const scraped = await scrape(`${t.baseUrl}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const after = parse(scraped.text);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);

    expect(delta("cred_issuance_flows_completed_total")).toBe(1);
    expect(delta("cred_verifications_completed_total", { outcome: "verified" })).toBe(1);
    expect(delta("cred_verifications_completed_total", { outcome: "rejected" })).toBe(0);
    expect(delta("cred_credential_status_changes_total", { action: "revoked" })).toBe(1);
    expect(delta("cred_credential_status_changes_total", { action: "suspended" })).toBe(1);
    expect(delta("cred_credential_status_changes_total", { action: "reinstated" })).toBe(1);
    // RED by operation id: the REST calls this test made, by status.
    const rest = (operation: string, status_code: string) =>
      delta("cred_http_requests_total", { surface: "rest", operation, status_code });
    expect(rest("IssuanceTransactions_Create", "201")).toBe(1);
    expect(rest("Verifications_Create", "201")).toBe(1);
    expect(rest("Credentials_Revoke", "200")).toBe(1);
    expect(
      delta("cred_http_request_duration_seconds_count", {
        surface: "rest",
        operation: "IssuanceTransactions_Create",
        status_class: "2xx",
      }),
    ).toBe(1);
    // The wallet's side, by endpoint name and outcome.
    expect(delta("cred_wallet_outcomes_total", { endpoint: "token", outcome: "ok" })).toBe(1);
    expect(delta("cred_wallet_outcomes_total", { endpoint: "token", outcome: "invalid_grant" })).toBe(1);
    expect(delta("cred_wallet_outcomes_total", { endpoint: "credential", outcome: "ok" })).toBe(1);
    expect(delta("cred_wallet_outcomes_total", { endpoint: "direct_post", outcome: "ok" })).toBe(1);
    expect(
      delta("cred_http_requests_total", { surface: "wallet", operation: "token", status_code: "400" }),
    ).toBe(1);
    // The worker's attempts (issuance created and completed, verification created and verified, revoked):
    // each answered 503, so each failed as http_5xx and stays queued for a retry.
    const attempts = delta("cred_webhook_attempt_duration_seconds_count", { result: "http_5xx" });
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(delta("cred_webhook_attempt_failures_total", { reason: "http_5xx" })).toBe(attempts);
    expect(total(after, "cred_webhook_queue_depth")).toBeGreaterThanOrEqual(attempts);
    // Read on scrape: one open status list, its one entry allocated; the pool and statements.
    expect(total(after, "cred_status_lists", { state: "open" })).toBe(1);
    expect(total(after, "cred_status_list_fill_ratio", { aggregate: "max" })).toBeGreaterThan(0);
    expect(total(after, "cred_db_pool_max_connections")).toBeGreaterThan(0);
    expect(after.some((s) => s.name === "cred_db_pool_connections" && s.labels.state === "idle")).toBe(true);
    expect(delta("cred_db_statement_duration_seconds_count")).toBeGreaterThan(10);
    // prom-client's default metrics: event loop lag, GC, memory.
    for (const name of [
      "nodejs_eventloop_lag_seconds",
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
    ])
      expect(after.some((s) => s.name === name)).toBe(true);
    expect(scraped.text).toContain("# TYPE nodejs_gc_duration_seconds histogram");

    // No label value is an id, a tenant or a URL.
    const ids = [t.tenantId, active.issuerId, issued.credentialId, active.configuration];
    for (const sample of after) {
      for (const value of Object.values(sample.labels)) {
        expect(value, `${sample.name} ${JSON.stringify(sample.labels)}`).not.toMatch(
          /^[a-z]+_[0-9A-Za-z]{20,}$/,
        );
        expect(
          ids.some((id) => value.includes(id)),
          `${sample.name} ${JSON.stringify(sample.labels)}`,
        ).toBe(false);
        expect(value).not.toMatch(/^https?:|\/issuers\/[^:]|\/v1\.0\/[a-z-]+\/[^{]/);
      }
    }
  });

  it("labels console calls by procedure key, never by what the caller sent as a path", async () => {
    const before = parse((await scrape(`${t.baseUrl}/metrics`)).text);
    await fetch(`${t.baseUrl}/trpc/${encodeURIComponent("iss_0123456789abcdefghij")}`);
    await fetch(`${t.baseUrl}/v1.0/issuance-transactions/tx_0123456789abcdefghij/nothing-here`);
    const after = parse((await scrape(`${t.baseUrl}/metrics`)).text);
    const delta = (labels: Record<string, string>) =>
      total(after, "cred_http_requests_total", labels) - total(before, "cred_http_requests_total", labels);
    expect(delta({ surface: "console", operation: "unknown" })).toBe(1);
    expect(delta({ surface: "rest", operation: "unmatched", status_code: "404" })).toBe(1);
    expect(JSON.stringify(after.map((s) => s.labels))).not.toContain("0123456789abcdefghij");
  });

  it("passes promtool check metrics", async (ctx) => {
    const promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].find((p) => existsSync(p));
    if (!promtool) return ctx.skip("promtool is not installed (apt-get install prometheus provides it)");
    const { text } = await scrape(`${t.baseUrl}/metrics`);
    const checked = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(`${checked.stdout}${checked.stderr}`.trim()).toBe("");
    expect(checked.status).toBe(0);
  });
});

describe("on METRICS_PORT, a listener of its own", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ metrics: { port: 0 } });
  });
  afterAll(() => t?.close());

  const metricsUrl = (path = "/metrics") => {
    const { address, port } = t.server.metricsListener!.address;
    return `http://${address}:${port}${path}`;
  };

  it("listens on loopback and serves /metrics there alone, not on the API's port", async () => {
    expect(t.server.metricsListener!.address.address).toBe("127.0.0.1");
    const served = await scrape(metricsUrl(), undefined);
    expect(served.status).toBe(200);
    expect(served.text).toContain("# TYPE cred_http_requests_total counter");
    expect((await scrape(`${t.baseUrl}/metrics`, undefined)).status).toBe(404);
    expect((await scrape(metricsUrl("/healthz"), undefined)).status).toBe(404);
  });

  it("keeps a registry per server: this server's counts are not another's", async () => {
    const other = await startTestServer({ metrics: { port: 0 } });
    try {
      await call(t, "GET", "/management/organisations", { key: t.adminKey });
      const mine = parse((await scrape(metricsUrl(), undefined)).text);
      const { address, port } = other.server.metricsListener!.address;
      const theirs = parse((await scrape(`http://${address}:${port}/metrics`, undefined)).text);
      const listed = { surface: "rest", operation: "Organisations_List" };
      expect(total(mine, "cred_http_requests_total", listed)).toBeGreaterThanOrEqual(1);
      expect(total(theirs, "cred_http_requests_total", listed)).toBe(0);
    } finally {
      await other.close();
    }
  });
});
