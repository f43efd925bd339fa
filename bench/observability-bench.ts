// `pnpm bench --observability`: our issuance and verification flows with metrics and tracing off, then on
// (METRICS_TOKEN set and /metrics scraped as Prometheus would; every span exported over OTLP/HTTP to a sink
// in this process), alternated on fresh servers so a change in the machine's load shows between runs of one
// setting instead of between the settings. The question it answers (#26): server CPU per flow, on vs off.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  FLOWS,
  MACHINE_ADJUSTED,
  roundRatios,
  roundRatioValues,
  runAlternated,
  type SettingRun,
  settingRatios,
  writeSettingsReport,
} from "./alternated-settings";
import type { BenchOptions } from "./args";
import { f } from "./format";
import { medianInterval } from "./median-interval";

/** The settings of a run: off and on, or with `--parts each` each part alone between them. */
const settingsOf = (each: boolean) => (each ? ["off", "metrics", "tracing", "on"] : ["off", "on"]);

/** An OTLP/HTTP sink: accepts every export (protobuf or JSON) with an empty success answer and counts them. */
export async function otlpSink() {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () => {
      if (req.url === "/v1/traces") exports++;
      const json = String(req.headers["content-type"]).startsWith("application/json");
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      res.end(json ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ exports, bytes }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The server's environment for "on": METRICS_TOKEN (the scrapes' bearer token) with metrics, the OTEL_*
 * variables exporting OTLP/HTTP protobuf to `sinkUrl` with tracing (every trace at ratio 1, else that share).
 */
export function observabilityOnEnv(on: {
  metrics: boolean;
  tracing: boolean;
  token: string;
  sinkUrl: string;
  traceRatio: number;
}): Record<string, string> {
  return {
    ...(on.metrics && { METRICS_TOKEN: on.token }),
    ...(on.tracing && {
      OTEL_EXPORTER_OTLP_ENDPOINT: on.sinkUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      ...(on.traceRatio === 1
        ? { OTEL_TRACES_SAMPLER: "always_on" }
        : {
            OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
            OTEL_TRACES_SAMPLER_ARG: String(on.traceRatio),
          }),
    }),
  };
}

/** Scrapes /metrics every `intervalMs` (Prometheus' default is 15 s; this is busier on purpose). */
function scraper(baseUrl: string, token: string, intervalMs = 5_000) {
  let scrapes = 0;
  let failures = 0;
  const scrape = () =>
    fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      .then(async (res) => {
        await res.text();
        if (res.ok) scrapes++;
        else failures++;
      })
      .catch(() => {
        failures++;
      });
  const timer = setInterval(scrape, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await scrape();
      return { scrapes, failures };
    },
  };
}

/**
 * Per flow, each setting against off with its runs pooled (server CPU per flow, throughput and p99), and
 * round by round (the median of the rounds' ratios, and their spread); the budget's verdict is on "on",
 * both parts.
 */
export function observabilityRatios(runs: SettingRun[]): string[] {
  const others = [...new Set(runs.map((r) => r.setting))].filter((s) => s !== "off");
  return [
    ...others.flatMap((setting) => [
      ...settingRatios(runs, "off", setting),
      ...roundRatios(runs, "off", setting),
    ]),
    ...FLOWS.flatMap((flow) => [
      ...budgetVerdict(flow, roundRatioValues(runs, "off", "on", flow)),
      ...MACHINE_ADJUSTED.flatMap(({ name, measure }) =>
        budgetVerdict(`${flow} (${name})`, roundRatioValues(runs, "off", "on", flow, measure)),
      ),
    ]),
  ];
}

/** Server CPU per flow that observability may add (issue #26). */
export const OVERHEAD_BUDGET = 1.05;

/**
 * Whether the rounds show "on" within the budget: met when the whole 95% interval of the median ratio is at
 * or under it, exceeded when the whole interval is above it, otherwise not resolved by these rounds.
 */
export function budgetVerdict(flow: string, ratios: number[]): string[] {
  if (ratios.length === 0) return [];
  const interval = medianInterval(ratios);
  const budget = `the ${f((OVERHEAD_BUDGET - 1) * 100, 0)}% budget`;
  if (!interval) return [`${flow}: ${budget} is not resolved: too few rounds for a 95% interval`];
  const range = `${f(interval.low, 3)}–${f(interval.high, 3)}×`;
  if (interval.high <= OVERHEAD_BUDGET) return [`${flow}: within ${budget} (interval ${range})`];
  if (interval.low > OVERHEAD_BUDGET) return [`${flow}: over ${budget} (interval ${range})`];
  return [`${flow}: ${budget} is not resolved by these rounds (interval ${range} straddles it)`];
}

/** What "on" is, for the report. */
function onWhat(options: BenchOptions): string {
  const parts = options.observabilityParts;
  const said = [
    parts.includes("metrics") && "METRICS_TOKEN set with /metrics scraped every 5 s",
    parts.includes("tracing") &&
      `OpenTelemetry tracing with ${options.traceRatio === 1 ? "every trace" : `${options.traceRatio * 100}% of traces`} ` +
        "sampled and exported over OTLP/HTTP (protobuf) to a sink in the bench process",
  ].filter(Boolean);
  if (!said.length)
    return '"on" is the same server as "off" (`--parts none`): an A/A check of the bench itself.';
  const each = options.observabilityEach
    ? '; "metrics" and "tracing" are each part alone, all four settings alternated in every round'
    : "";
  return `"on": ${said.join(", and ")}${each}.`;
}

/** Runs the flows with metrics and tracing off and on, alternated; returns the exit status. */
export async function runObservabilityBench(options: BenchOptions): Promise<number> {
  const started = new Date();
  const sink = await otlpSink();
  let result: { runs: SettingRun[]; notes: string[] };
  try {
    result = await runAlternated(
      options,
      "observability",
      settingsOf(options.observabilityEach),
      (setting) => {
        if (setting === "off") return {};
        const parts = setting === "on" ? options.observabilityParts : [setting];
        const metrics = parts.includes("metrics");
        const tracing = parts.includes("tracing");
        const token = randomBytes(32).toString("hex");
        return {
          env: observabilityOnEnv({
            metrics,
            tracing,
            token,
            sinkUrl: sink.url,
            traceRatio: options.traceRatio,
          }),
          beside: (baseUrl) => {
            const before = sink.counts();
            const scrapes = metrics ? scraper(baseUrl, token) : undefined;
            let scraped = { scrapes: 0, failures: 0 };
            return {
              async stopping() {
                if (scrapes) scraped = await scrapes.stop();
              },
              async finished() {
                // Give the exporter's last batch (sent at shutdown) a moment to arrive before counting.
                await new Promise((resolve) => setTimeout(resolve, 500));
                const after = sink.counts();
                const exported = after.exports - before.exports;
                const notes = [
                  `${exported} OTLP exports (${f((after.bytes - before.bytes) / 1024, 0)} KiB) received, ` +
                    `/metrics scraped ${scraped.scrapes} times (${scraped.failures} failed)`,
                ];
                if ((tracing && exported === 0) || (metrics && !scraped.scrapes))
                  notes.push("tracing or metrics were not on: the comparison is void");
                return notes;
              },
            };
          },
        };
      },
    );
  } finally {
    await sink.close();
  }
  const { runs, notes } = result;
  return writeSettingsReport({
    name: "observability",
    title: "Observability overhead",
    started,
    options,
    what: onWhat(options),
    runs,
    ratios: observabilityRatios(runs),
    notes,
  });
}
