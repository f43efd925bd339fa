// pnpm bench: our service and a peer, driven from a separate process, against this machine's ES256 bound.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type PeerName, parseArgs } from "./args";
import { cryptoBound, measureCryptoRates } from "./crypto-bound";
import { readStatementTotals, type StatementShare, statementShares } from "./db-statements";
import type { DriverResult } from "./driver";
import { credentialIds, type OursTarget, ourClient, setupOurs, startOurs } from "./ours";
import {
  type PeerTarget,
  startCredoPeer,
  startCredoPeerVerifier,
  startPeer,
  startPeerVerifier,
} from "./peer/start";
import { type Service, sampleProcess } from "./processes";
import { type PhaseReport, printTable, type Report, type WorkloadReport, writeReports } from "./report";
import { runDriver } from "./run-driver";
import { seedStatements } from "./seed-records";
import { startWebhookReceiver } from "./webhook-receiver";
import type { DriverJob } from "./workload";
import { OUR_WORKLOADS, VERIFICATION_DRIVEN } from "./workloads";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const options = parseArgs(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`${line}\n`);
if (options.apiProcesses) {
  // The scale-out topology (HAProxy, PgBouncer, N API processes): a run of its own (topology-bench.ts).
  const { runTopologyBench } = await import("./topology-bench");
  process.exit(await runTopologyBench(options, options.apiProcesses));
}

if (options.keys) {
  // Issuer keys in software and in a PKCS#11 token, alternated: a run of its own (key-custody-bench.ts).
  const { runKeyCustodyBench } = await import("./key-custody-bench");
  process.exit(await runKeyCustodyBench(options));
}
if (options.observability) {
  // Metrics and tracing off and on, alternated: a run of its own (observability-bench.ts).
  const { runObservabilityBench } = await import("./observability-bench");
  process.exit(await runObservabilityBench(options));
}

type ServerSample = ReturnType<ReturnType<typeof sampleProcess>["stop"]>;

/**
 * One driver run, with the server's CPU, preemptions and RSS sampled over the driver's recorded window
 * only (it marks its start and end), so neither the warm-up nor the driver's start is charged to the
 * recorded operations.
 */
async function runSampledDriver(
  pid: number,
  job: DriverJob,
): Promise<DriverResult & { server: ServerSample; dbStatements?: StatementShare[] }> {
  let sampler = sampleProcess(pid);
  let server: ServerSample | undefined;
  // Only our server's database thread writes the totals.
  const statsFile = job.side === "ours" ? statementStatsFile : undefined;
  const totals = () => (statsFile ? readStatementTotals(statsFile) : new Map());
  let statementsBefore = totals();
  let statementsAfter: ReturnType<typeof totals> | undefined;
  const result = await runDriver(job, options.driverCpuProf, (mark) => {
    if (mark === "recording") {
      sampler.stop();
      sampler = sampleProcess(pid);
      statementsBefore = totals();
    } else {
      server = sampler.stop();
      statementsAfter = totals();
    }
  });
  const dbStatements = statsFile
    ? { dbStatements: statementShares(statementsBefore, statementsAfter ?? totals(), result.ops) }
    : {};
  return { ...result, server: server ?? sampler.stop(), ...dbStatements };
}

/**
 * Peak (closed loop), then, unless told not to, an open-loop run at 70% of that peak. `side` picks the
 * driver's workloads (ours, or the peers', which both peers share); `label` names the run in the log.
 */
async function measure(
  service: Service,
  side: "ours" | "peer",
  workload: string,
  target: unknown,
  items?: string[],
  label: string = side,
): Promise<{ phases: PhaseReport[]; produced: string[] }> {
  const durationMs = options.duration * 1000;
  // A finite set of items (credentials to revoke) is not spent on the warm-up.
  const warmupMs = items ? 0 : options.smoke ? 300 : Math.min(2000, durationMs / 5);
  const phases: PhaseReport[] = [];
  const half = items ? Math.ceil(items.length / 2) : 0;
  const peak = await runSampledDriver(service.pid, {
    side,
    workload,
    target,
    concurrency: options.concurrency,
    durationMs,
    warmupMs,
    items: items?.slice(0, half),
  });
  phases.push({ phase: "peak", concurrency: options.concurrency, ...peak });
  log(
    `  ${label} ${workload} peak: ${peak.throughput.toFixed(1)}/s p99 ${peak.latency.p99.toFixed(1)} ms, ${peak.errors} errors`,
  );
  if (!options.noLatencyRun && peak.throughput > 0) {
    const rate = options.rate ?? 0.7 * peak.throughput;
    const at70 = await runSampledDriver(service.pid, {
      side,
      workload,
      target,
      concurrency: options.concurrency,
      durationMs,
      warmupMs,
      rate,
      items: items?.slice(half),
    });
    phases.push({
      phase: options.rate ? "fixed rate" : "70% of peak",
      rate,
      concurrency: options.concurrency,
      ...at70,
    });
    log(
      `  ${label} ${workload} at ${rate.toFixed(1)}/s: p99 ${at70.latency.p99.toFixed(1)} ms, ${at70.errors} errors`,
    );
  }
  return { phases, produced: [...phases.flatMap((p) => p.produced)] };
}

async function verificationAvailable(baseUrl: string): Promise<boolean> {
  const doc = await (await fetch(`${baseUrl}/openapi.json`)).json().catch(() => ({}));
  return JSON.stringify(doc).includes('"Verifications_Create"');
}

const started = new Date();
log(
  `bench: ${options.smoke ? "smoke, " : ""}${options.duration}s per phase, concurrency ${options.concurrency}, db ${options.db}`,
);
log("measuring raw ES256 rates (one core)…");
const crypto = await measureCryptoRates(options.smoke ? 200 : 1000);
const report: Report = {
  startedAt: started.toISOString(),
  options,
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "",
    node: process.version,
    totalMemGb: os.totalmem() / 2 ** 30,
  },
  crypto,
  workloads: [],
  notes: [],
};
const wanted = (id: string) => !options.only || options.only.includes(id);
const resultsDir = path.join(HERE, "results");
fs.mkdirSync(resultsDir, { recursive: true });
const cpuProfDir = options.cpuProf ? path.join(resultsDir, `cpu-${started.getTime()}`) : undefined;
/** Written by the embedded database thread four times a second; read at each phase's window marks. */
const statementStatsFile = options.dbStatements
  ? path.join(os.tmpdir(), `cred-bench-statements-${started.getTime()}.json`)
  : undefined;

log(`starting our service (${options.db})…`);
const ours = await startOurs({
  db: options.db,
  cpuProfDir,
  nodeArgs: options.serverNodeArgs,
  logFile: options.serverLog,
  statementStatsFile,
});
try {
  const target: OursTarget = await setupOurs(ours.service.baseUrl, ours.apiKey);
  let issued: string[] = [];
  for (const id of Object.keys(OUR_WORKLOADS) as (keyof typeof OUR_WORKLOADS)[]) {
    if (!wanted(id)) continue;
    const base = { side: "ours" as const, id, title: OUR_WORKLOADS[id], bound: cryptoBound(crypto, id) };
    if (id === "verification") {
      const reason = !(await verificationAvailable(target.baseUrl))
        ? "Verifications_Create is not in this build"
        : !VERIFICATION_DRIVEN
          ? "the verification slice is not committed yet; the harness does not drive it"
          : undefined;
      if (reason) {
        report.workloads.push({ ...base, available: false, phases: [], note: `not available: ${reason}` });
        log(`  verification: not available (${reason})`);
        continue;
      }
    }
    if (id === "lists") {
      const rows = options.seedRows ?? (options.smoke ? 10_000 : 1_000_000);
      log(`  lists: seeding ${rows} issuance transactions and ${rows} verification sessions…`);
      const seeding = Date.now();
      await ours.runSql(
        seedStatements({
          issuerId: target.issuerId,
          configuration: target.configuration,
          policy: target.verificationPolicy,
          rows,
        }),
      );
      log(`  lists: seeded in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    }
    let items: string[] | undefined;
    if (id === "revoke") {
      if (issued.length === 0) {
        const seed = await measure(ours.service, "ours", "issuance", target);
        issued = seed.produced;
      }
      items = await credentialIds(target, issued);
    }
    // The webhooks workload runs after the flows: its subscription (every event) stays for the rest of the
    // server's life. Only `lists` follows it (reads; its seeded table would slow the writes before it).
    const receiver = id === "webhooks" ? await startWebhookReceiver() : undefined;
    if (receiver) {
      await ourClient(target.baseUrl, target.apiKey).post("/management/webhooks", {
        body: { url: receiver.url, events: ["*"] },
      });
    }
    try {
      const { phases, produced } = await measure(ours.service, "ours", id, target, items);
      if (id === "issuance") issued = produced;
      report.workloads.push({
        ...base,
        available: true,
        phases,
        note: items ? `${items.length} credentials to revoke` : undefined,
        ...(receiver ? { webhooks: await receiver.settle(2_000, 30_000) } : {}),
      });
    } finally {
      await receiver?.close();
    }
  }
} finally {
  await ours.stop();
  if (statementStatsFile) fs.rmSync(statementStatsFile, { force: true });
}
report.serverPeakRssMb = Math.max(0, ...report.workloads.flatMap((w) => w.phases.map((p) => p.server.hwmMb)));

/** How each peer is started and labelled; both are driven by bench/peer/workloads.ts. */
const PEERS = {
  library: {
    side: "peer",
    start: startPeer,
    startVerifier: startPeerVerifier,
    issuer: "oid4vc-ts issuer",
    verifier: "oid4vc-ts openid4vp verifier",
    issuanceTitle: "Peer (oid4vc-ts + @sd-jwt, in memory): create → offer → token → nonce → credential",
    verificationTitle:
      "Peer (oid4vc-ts openid4vp + @sd-jwt, in memory): create session → request object → direct_post.jwt → result",
  },
  credo: {
    side: "credo",
    start: startCredoPeer,
    startVerifier: startCredoPeerVerifier,
    issuer: "Credo 0.6 issuer",
    verifier: "Credo 0.6 verifier",
    issuanceTitle:
      "Credo 0.6 (@credo-ts/openid4vc, in-memory storage, Node KMS): create → offer → token → nonce → credential",
    verificationTitle:
      "Credo 0.6 (@credo-ts/openid4vc, in-memory storage, Node KMS): create session → request object → direct_post.jwt → result",
  },
} as const satisfies Record<
  PeerName,
  {
    side: WorkloadReport["side"];
    start: () => Promise<{ service: Service; target: PeerTarget }>;
    startVerifier: (issuer: PeerTarget) => Promise<{ service: Service; target: PeerTarget }>;
    issuer: string;
    verifier: string;
    issuanceTitle: string;
    verificationTitle: string;
  }
>;

async function runPeer(name: PeerName) {
  const spec = PEERS[name];
  const id = (flow: string) => `${spec.side}:${flow}`;
  log(`starting the ${name} peer (${spec.issuer})…`);
  const peer = await spec.start();
  try {
    if (wanted("issuance")) {
      const { phases } = await measure(peer.service, "peer", "issuance", peer.target, undefined, spec.side);
      report.workloads.push({
        side: spec.side,
        id: id("issuance"),
        title: spec.issuanceTitle,
        bound: cryptoBound(crypto, id("issuance")),
        available: true,
        phases,
      });
    }
    if (wanted("verification")) {
      // The verifier trusts the peer issuer's key; the issuer stays up (idle) for the one credential the
      // workload has it issue before the loop. Only the verifier's process is sampled.
      log(`starting the ${name} peer verifier (${spec.verifier})…`);
      const verifier = await spec.startVerifier(peer.target);
      try {
        const { phases } = await measure(
          verifier.service,
          "peer",
          "verification",
          verifier.target,
          undefined,
          spec.side,
        );
        report.workloads.push({
          side: spec.side,
          id: id("verification"),
          title: spec.verificationTitle,
          bound: cryptoBound(crypto, id("verification")),
          available: true,
          phases,
        });
      } finally {
        await verifier.service.stop();
      }
    }
  } finally {
    await peer.service.stop();
  }
}

if (wanted("issuance") || wanted("verification")) {
  for (const name of options.peers) await runPeer(name);
}

if (cpuProfDir) {
  const { summariseProfiles } = await import("./profile-summary");
  report.cpuProfile = summariseProfiles(cpuProfDir);
}

const files = writeReports(resultsDir, report);
process.stdout.write(printTable(report));
log(`\nreports: ${files.join(", ")}`);
const errors = report.workloads.reduce((n, w) => n + w.phases.reduce((m, p) => m + p.errors, 0), 0);
const empty = report.workloads.filter((w) => w.available && !w.phases.some((p) => p.ops > 0));
if (errors > 0 || empty.length > 0) {
  log(
    `bench: ${errors} errors; workloads with no completed operation: ${empty.map((w) => w.id).join(", ") || "none"}`,
  );
  process.exit(1);
}
