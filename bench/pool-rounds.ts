// `tsx bench/pool-rounds.ts <report.json>…`: the rounds of several `pnpm bench --observability` runs of the
// same options taken as one run, for a median and interval no single run's rounds fit in a session (one
// report alone: its ratios and verdict again, e.g. for a report written before the interval was). Each
// run's rounds are numbered after the previous run's, so a round still pairs the two servers that ran
// back to back.
import fs from "node:fs";
import { poolRounds, type SettingRun } from "./alternated-settings";
import { parseArgs } from "./args";
import { observabilityRatios } from "./observability-bench";

interface Report {
  startedAt: string;
  options: Record<string, unknown>;
  runs: SettingRun[];
}

/** The options that decide what a round measures; reports that differ in them are not pooled. */
const SAME = [
  "db",
  "rate",
  "concurrency",
  "duration",
  "warmup",
  "bursts",
  "only",
  "traceRatio",
  "observabilityParts",
  "observabilityEach",
  "serverNodeArgs",
];

function main(files: string[]): number {
  if (files.length === 0) {
    process.stderr.write("usage: tsx bench/pool-rounds.ts <observability report.json>…\n");
    return 2;
  }
  const reports = files.map((file) => JSON.parse(fs.readFileSync(file, "utf8")) as Report);
  // A report written before an option existed has the option's default.
  const defaults = parseArgs([]) as unknown as Record<string, unknown>;
  const option = (report: Report, key: string) => JSON.stringify(report.options[key] ?? defaults[key]);
  for (const report of reports.slice(1)) {
    const differs = SAME.filter((key) => option(report, key) !== option(reports[0]!, key));
    if (differs.length) {
      process.stderr.write(`${report.startedAt}: options differ (${differs.join(", ")}); not pooled\n`);
      return 1;
    }
  }
  const runs = poolRounds(reports);
  process.stdout.write(`${reports.map((r) => r.startedAt).join(" + ")}:\n`);
  for (const line of observabilityRatios(runs)) process.stdout.write(`- ${line}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
