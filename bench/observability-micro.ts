// The per-request CPU cost of the server's observability path, without the rest of the server and without the
// machine's wall clock: the real hooks (tracing/request-spans.ts, tracing/wallet-steps.ts,
// metrics/request-metrics.ts) on a Fastify app with the server's pino logger, whose wallet route runs two
// statements through the request's deps (one Prisma model call, one SQL text), driven by `inject` (no sockets)
// in a child process per setting; what is measured is the child's CPU time (process.cpuUsage: every thread,
// the GC's helpers too) per request.
// Settings alternate round by round (ABBA), and each setting's median over the rounds is reported.
//
//   tsx bench/observability-micro.ts [--rounds 4] [--requests 20000] [--warmup 20000] [--only off,traced-100]
//   [--protocol http/json] [--cpu-prof <dir>]
//
// Settings: off (no hooks), metrics (prom-client's hooks only), traced-0 (metrics, and tracing with no trace
// sampled), traced-10 (10% sampled), traced-100 (every trace). "traced" runs the OpenTelemetry SDK as
// start-tracing.ts starts it, exporting OTLP/HTTP protobuf to a sink in the parent process (its CPU is not
// the child's).
import { execFileSync, fork } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SETTINGS = ["off", "metrics", "traced-0", "traced-10", "traced-100"] as const;
type Setting = (typeof SETTINGS)[number];

async function child(setting: Setting, requests: number, warmup: number) {
  const { createRequire } = await import("node:module");
  const api = createRequire(path.join(HERE, "../apps/api/package.json"));
  // fastify is apps/api's dependency, not the bench's: loaded from there, typed as far as used here.
  type Request = Parameters<typeof import("../apps/api/src/tracing/request-spans").requestDeps>[0];
  type App = Parameters<typeof import("../apps/api/src/tracing/request-spans").registerRequestSpans>[0] & {
    post(url: string, handler: (request: Request) => Promise<unknown>): void;
    inject(options: { method: string; url: string; payload: unknown }): Promise<unknown>;
  };
  const Fastify = api("fastify") as (options: { logger: object }) => App;
  const traced = setting.startsWith("traced");
  if (traced) {
    const { startTracing } = await import("../apps/api/src/tracing/start-tracing");
    const { tracingEnv } = await import("../apps/api/src/tracing/tracing-env");
    await startTracing("observability-micro", tracingEnv(process.env));
  }
  const { traceIdsOfLogger } = await import("../apps/api/src/tracing/log-trace-ids");
  // The server's logger (server.ts): pino at the level the bench's servers run at, with the trace ids'
  // mixin when tracing is on; each request gets its own child logger, as in the server.
  const app = Fastify({
    logger: { level: "warn", ...(traced && { mixin: traceIdsOfLogger }) },
  });
  // Every setting loads the same modules (the server loads them all, whatever its settings): a bigger heap
  // makes each garbage collection dearer, which would otherwise count against the settings that load more.
  const { registerRequestSpans, requestDeps } = await import("../apps/api/src/tracing/request-spans");
  const { traceWalletSteps } = await import("../apps/api/src/tracing/wallet-steps");
  const { createServerMetrics } = await import("../apps/api/src/metrics/server-metrics");
  const { registerRequestMetrics } = await import("../apps/api/src/metrics/request-metrics");
  if (traced) {
    registerRequestSpans(app);
    traceWalletSteps(app);
  }
  if (setting !== "off") registerRequestMetrics(app, createServerMetrics());
  const done = Promise.resolve({ rows: [], affected: 1 });
  const root = {
    prisma: { nonce: { findUnique: () => Promise.resolve(null) } },
    sql: { query: (_text: string) => done },
    inTransaction: false,
    transaction: () => Promise.reject(new Error("not used")),
    afterCommit: (effect: () => void) => effect(),
  };
  // As the server's deps (server.ts): the traced copy overwrites outboundTrace rather than adding it.
  const deps = { database: { root }, outboundTrace: undefined } as never;
  app.post("/issuers/:issuerId/token", async (request) => {
    const own = requestDeps(request, deps) as unknown as { database: { root: typeof root } };
    await own.database.root.prisma.nonce.findUnique();
    await own.database.root.sql.query(
      'UPDATE "IssuanceTransaction" SET "state" = $2 WHERE "id" = $1 AND "state" = $3 RETURNING "id"',
    );
    return { access_token: "x", token_type: "DPoP", expires_in: 300 };
  });
  await app.ready();
  const run = async (n: number) => {
    for (let i = 0; i < n; i += 16)
      await Promise.all(
        Array.from({ length: 16 }, () =>
          app.inject({ method: "POST", url: "/issuers/iss_1/token", payload: { grant_type: "x" } }),
        ),
      );
  };
  await run(warmup);
  const before = process.cpuUsage();
  await run(requests);
  const used = process.cpuUsage(before);
  process.send?.({ usPerRequest: (used.user + used.system) / requests });
  // Let the batch processor's last export go before the child exits (not measured).
  await app.close();
}

async function parent() {
  const arg = (name: string, fallback: number) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? fallback : Number(process.argv[at + 1]);
  };
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const rounds = arg("--rounds", 4);
  const requests = arg("--requests", 20_000);
  const warmup = arg("--warmup", 20_000);
  const only = option("--only")?.split(",");
  const settings = SETTINGS.filter((s) => !only || only.includes(s));
  const protocol = option("--protocol") ?? "http/protobuf";
  const cpuProfDir = option("--cpu-prof");
  let spansBytes = 0;
  const sink = http.createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      spansBytes += chunk.length;
    });
    req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const results = new Map<Setting, number[]>(SETTINGS.map((s) => [s, []]));
  const tsx = execFileSync("node", ["-e", "process.stdout.write(require.resolve('tsx/cli'))"], {
    cwd: HERE,
  }).toString();
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? settings : [...settings].reverse();
    for (const setting of order) {
      const ratio = setting === "traced-0" ? "0" : setting === "traced-10" ? "0.1" : "1";
      const us = await new Promise<number>((resolve, reject) => {
        const proc = fork(
          fileURLToPath(import.meta.url),
          ["--child", setting, String(requests), String(warmup)],
          {
            execPath: process.execPath,
            // tsx's cli runs the script in a process of its own: a profile needs tsx loaded in this one.
            execArgv: cpuProfDir ? ["--cpu-prof", "--cpu-prof-dir", cpuProfDir, "--import", "tsx"] : [tsx],
            env: {
              ...process.env,
              OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
              OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
              OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
              OTEL_TRACES_SAMPLER_ARG: ratio,
            },
            stdio: ["ignore", "inherit", "inherit", "ipc"],
          },
        );
        let got: number | undefined;
        proc.on("message", (m: { usPerRequest: number }) => {
          got = m.usPerRequest;
        });
        proc.on("exit", (code) =>
          got === undefined ? reject(new Error(`${setting} exited ${code}`)) : resolve(got),
        );
      });
      results.get(setting)!.push(us);
      process.stderr.write(`round ${round} ${setting}: ${us.toFixed(1)} µs CPU/request\n`);
    }
  }
  sink.close();
  const median = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const off = results.get("off")!.length ? median(results.get("off")!) : 0;
  process.stdout.write(
    `\n| setting | median µs CPU/request | range | median − off |\n| --- | --- | --- | --- |\n${settings
      .map((s) => {
        const v = results.get(s)!;
        return `| ${s} | ${median(v).toFixed(1)} | ${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)} | ${(median(v) - off).toFixed(1)} |`;
      })
      .join(
        "\n",
      )}\n\n${rounds} rounds × ${requests} requests per setting after ${warmup} of warm-up (${protocol}); OTLP received: ${(spansBytes / 1024).toFixed(0)} KiB\n`,
  );
}

if (process.argv[2] === "--child")
  await child(process.argv[3] as Setting, Number(process.argv[4]), Number(process.argv[5]));
else await parent();
