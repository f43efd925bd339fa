import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeIssuer, VALID_CLAIMS } from "./fixtures";
import { freePort } from "./fixtures/free-port";
import { receiver, until } from "./fixtures/webhooks";
import { call, freshPostgresDatabase } from "./harness";
import { fetchJson, redeemOffer } from "./wallet-client";

/**
 * OpenTelemetry tracing end to end: the built server (dist/main.mjs, as `pnpm start` runs it) as a child
 * process, exporting OTLP/HTTP JSON to a receiver in this process; on PostgreSQL too when
 * TEST_POSTGRES_URL is set (a fresh database), otherwise on the embedded database.
 */

const API = path.resolve(__dirname, "..");

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP receiver: collects the spans of each JSON export posted to /v1/traces. */
async function otlpReceiver(port = 0, host = "127.0.0.1") {
  const spans: ExportedSpan[] = [];
  const requests: string[] = [];
  const serviceNames = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
      if (req.url === "/v1/traces" && String(req.headers["content-type"]).startsWith("application/json")) {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const rs of body.resourceSpans ?? []) {
          for (const a of rs.resource?.attributes ?? [])
            if (a.key === "service.name") serviceNames.add(a.value.stringValue);
          for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    spans,
    requests,
    serviceNames,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The environment without any OTEL_* variable the caller's shell may have set. */
function withoutOtel(): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
}

/** Starts dist/main.mjs on a fresh database; its standard output is kept, line by line. */
async function startBuiltServer(env: Record<string, string>) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tracing-test-"));
  const pg = process.env.TEST_POSTGRES_URL
    ? await freshPostgresDatabase(process.env.TEST_POSTGRES_URL)
    : undefined;
  const child: ChildProcess = spawn(process.execPath, ["dist/main.mjs"], {
    cwd: API,
    env: {
      ...withoutOtel(),
      NODE_ENV: "development",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_BASE_URL: baseUrl,
      DATA_DIR: dataDir,
      DATABASE_URL: pg?.url ?? "",
      LOG_LEVEL: "info",
      LOG_FORMAT: "",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      WEBHOOK_POLL_INTERVAL_MS: "50",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const end = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > end)
      throw new Error(`the server did not start (exit ${child.exitCode}): ${stderr}${stdout}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const boot = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8"));
  return {
    baseUrl,
    apiKey: boot.apiKey as string,
    /** The JSON log lines written so far. */
    logLines: () =>
      stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
      fs.rmSync(dataDir, { recursive: true, force: true });
      await pg?.drop();
    },
  };
}
type BuiltServer = Awaited<ReturnType<typeof startBuiltServer>>;

beforeAll(() => {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: API, stdio: "inherit" });
}, 60_000);

const attribute = (span: ExportedSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;

describe("with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  let otlp: Awaited<ReturnType<typeof otlpReceiver>>;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let s: BuiltServer;

  beforeAll(async () => {
    otlp = await otlpReceiver();
    hooks = await receiver();
    s = await startBuiltServer({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_SERVICE_NAME: "tracing-test",
    });
  }, 90_000);
  afterAll(async () => {
    await s?.stop();
    await hooks?.close();
    await otlp?.close();
  });

  it("traces each wallet step, its SQL and each webhook attempt; log lines carry the trace ids; traceparent in and out", async () => {
    const issuer = await activeIssuer(s, s.apiKey);
    const sub = await call(s, "POST", "/management/webhooks", {
      key: s.apiKey,
      body: { url: `${hooks.url}?token=hook-s3cret`, events: ["*"] },
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const tx = await call(s, "POST", "/v1.0/issuance-transactions", {
      key: s.apiKey,
      body: {
        issuerId: issuer.issuerId,
        credentialConfiguration: issuer.configuration,
        claims: VALID_CLAIMS,
      },
    });
    expect(tx.status, JSON.stringify(tx.body)).toBe(201);
    const flow = await redeemOffer(tx.body.data.credentialOffer);
    expect(flow.credentialRes.status).toBe(200);

    // A wallet that traces sends traceparent: the server's spans join its trace.
    const walletTraceId = "0af7651916cd43dd8448eb211c80319c";
    const walletSpanId = "b7ad6b7169203331";
    const traced = await fetchJson(flow.metadata.nonce_endpoint, {
      method: "POST",
      headers: { traceparent: `00-${walletTraceId}-${walletSpanId}-01` },
    });
    expect(traced.status).toBe(200);

    // A handle in a path (a capability) and query values are not exported.
    const probe = await fetch(`${s.baseUrl}/issuers/${issuer.issuerId}/offers/handle-s3cret?x=also-s3cret`);
    expect(probe.status).toBe(404);

    const delivered = await until("a webhook delivery", async () => hooks.received[0]);
    const named = (name: string) =>
      until(`a span named ${name}`, async () => otlp.spans.find((span) => span.name === name));

    // One trace per wallet request: its HTTP server span (named by route), the wallet step inside it, and
    // the step's SQL statements inside that.
    const ancestors = (span: ExportedSpan): ExportedSpan[] => {
      const parent = otlp.spans.find((p) => p.spanId === span.parentSpanId);
      return parent ? [parent, ...ancestors(parent)] : [];
    };
    const stepTraces = new Set<string>();
    for (const [step, route] of [
      ["token", "POST /issuers/:issuerId/token"],
      ["nonce", "POST /issuers/:issuerId/nonce"],
      ["credential", "POST /issuers/:issuerId/credential"],
      ["credential_issuer_metadata", "GET /.well-known/openid-credential-issuer/issuers/:issuerId"],
    ] as const) {
      const stepSpan = await named(`wallet ${step}`);
      // The request's root: the HTTP server span, named by the route (fastify's handler span between).
      const root = await until(`the root of ${step}`, async () => {
        const chain = ancestors(stepSpan);
        const last = chain.at(-1);
        return last && !last.parentSpanId && last;
      });
      expect(root.name).toBe(route);
      expect(root.kind).toBe(2); // SERVER
      expect(root.traceId).toBe(stepSpan.traceId);
      stepTraces.add(stepSpan.traceId);
    }
    const credentialStep = await named("wallet credential");
    expect(attribute(credentialStep, "wallet.endpoint")).toEqual({ stringValue: "credential" });
    const inTrace = (traceId: string) => otlp.spans.filter((span) => span.traceId === traceId);
    const sql = await until("the credential step's SQL spans", async () => {
      const found = inTrace(credentialStep.traceId).filter((span) => span.name.startsWith("pg.query"));
      return found.length > 0 && found;
    });
    // Every statement is a span below the wallet step (directly, or under the pool's connect span).
    for (const statement of sql) {
      expect(ancestors(statement).map((a) => a.spanId)).toContain(credentialStep.spanId);
    }
    expect(attribute(sql[0]!, "db.system.name")).toEqual({ stringValue: "postgresql" });
    // The statement's text, with placeholders: never the values bound to them.
    expect(attribute(sql[0]!, "db.query.text")?.stringValue).toMatch(/\$1/);
    expect(stepTraces.size).toBe(4);

    // traceparent on input.
    const joined = await until("the traced nonce request's span", async () =>
      otlp.spans.find((span) => span.traceId === walletTraceId && span.parentSpanId === walletSpanId),
    );
    expect(joined.name).toBe("POST /issuers/:issuerId/nonce");

    // traceparent on the webhook delivery: the attempt's client span.
    const header = delivered.headers.traceparent ?? "";
    const [, traceId, parentId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(header) ?? [];
    expect(traceId, header).toBeDefined();
    const attempt = await named("webhook attempt");
    expect(attempt.traceId).toBe(traceId);
    const post = await until("the delivery's client span", async () =>
      otlp.spans.find((span) => span.spanId === parentId),
    );
    expect(post.kind).toBe(3); // CLIENT
    expect(post.parentSpanId).toBe(attempt.spanId);
    expect(attribute(attempt, "webhook.event_type")).toBeDefined();
    expect(attribute(post, "url.full")).toEqual({ stringValue: `${hooks.url}?token=REDACTED` });

    const probeSpan = await until("the probe's span", async () =>
      otlp.spans.find((span) => attribute(span, "url.query")?.stringValue === "x=REDACTED"),
    );
    expect(attribute(probeSpan, "url.path")).toEqual({
      stringValue: `/issuers/${issuer.issuerId}/offers/:handle`,
    });
    expect(JSON.stringify(otlp.spans)).not.toMatch(/s3cret/);

    // Log lines carry the ids beside the request id (the server process's stdout may lag its spans).
    const credentialLine = await until("the credential request's log line", async () =>
      s.logLines().find((line) => line.msg === "request" && line.route === "/issuers/:issuerId/credential"),
    );
    expect(credentialLine).toMatchObject({ trace_id: credentialStep.traceId });
    expect(credentialLine?.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(credentialLine?.requestId).toBeDefined();
    expect([...otlp.serviceNames]).toEqual(["tracing-test"]);
  }, 60_000);
});

describe("with OTEL unset (or OTEL_SDK_DISABLED=true)", () => {
  for (const [label, env] of [
    ["unset", {}],
    ["disabled", { OTEL_SDK_DISABLED: "true" }],
  ] as const) {
    it(`${label}: no exporter traffic, no trace ids in the logs`, async () => {
      // With no endpoint the exporter would use http://localhost:4318: listen there too, when free.
      const fallback = await otlpReceiver(4318).catch(() => undefined);
      const otlp = await otlpReceiver();
      const s = await startBuiltServer(
        label === "disabled"
          ? { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: "100" }
          : env,
      );
      try {
        const issuer = await activeIssuer(s, s.apiKey);
        const tx = await call(s, "POST", "/v1.0/issuance-transactions", {
          key: s.apiKey,
          body: {
            issuerId: issuer.issuerId,
            credentialConfiguration: issuer.configuration,
            claims: VALID_CLAIMS,
          },
        });
        const flow = await redeemOffer(tx.body.data.credentialOffer);
        expect(flow.credentialRes.status).toBe(200);
        await new Promise((r) => setTimeout(r, 1000));
        expect(otlp.requests).toEqual([]);
        expect(fallback?.requests ?? []).toEqual([]);
        const lines = s.logLines().filter((line) => line.msg === "request");
        expect(lines.length).toBeGreaterThan(3);
        for (const line of lines) expect(line).not.toHaveProperty("trace_id");
      } finally {
        await s.stop();
        await otlp.close();
        await fallback?.close();
      }
    }, 90_000);
  }
});
