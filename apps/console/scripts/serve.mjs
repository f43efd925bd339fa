#!/usr/bin/env node
// Serves the console: builds it first when there is no build or its sources changed since the last one,
// then runs its server (server.mjs: Next's handler, X-Forwarded-For appended). Both run with
// NODE_ENV=production whatever was exported (next-env.mjs). Exits non-zero, saying which step failed,
// when the build or the server fails. Env: CONSOLE_PORT (3001), CONSOLE_HOST (127.0.0.1), API_ORIGIN
// (http://127.0.0.1:3000).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nextEnv } from "./next-env.mjs";

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(consoleDir, "../..");
const nextBin = path.join(consoleDir, "node_modules/next/dist/bin/next");
const stampFile = path.join(consoleDir, ".next/source-stamp");
const env = nextEnv(process.env, "production");

/** Fingerprint of everything the build depends on: console sources and config, contracts and core sources, lockfile. */
function sourceStamp() {
  const hash = createHash("sha256");
  const visit = (entry) => {
    let stat;
    try {
      stat = fs.statSync(entry);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(entry).sort()) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        visit(path.join(entry, name));
      }
    } else if (!entry.endsWith(".test.ts")) {
      hash.update(`${path.relative(repoRoot, entry)}:${stat.size}:${stat.mtimeMs}\n`);
    }
  };
  for (const p of [
    path.join(consoleDir, "src"),
    path.join(consoleDir, "next.config.ts"),
    path.join(consoleDir, "package.json"),
    path.join(repoRoot, "packages/contracts/src"),
    path.join(repoRoot, "packages/core/src"),
    path.join(repoRoot, "pnpm-lock.yaml"),
  ]) {
    visit(p);
  }
  return hash.digest("hex");
}

const stamp = sourceStamp();
const built = fs.existsSync(path.join(consoleDir, ".next/BUILD_ID"));
const current = built && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === stamp;
if (!current) {
  process.stdout.write(
    `Console: ${built ? "sources changed, rebuilding" : "building"} (next build, about a minute)…\n`,
  );
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: consoleDir,
    env,
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    process.stdout.write(result.stdout?.toString() ?? "");
    const how = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
    process.stderr.write(`Console: next build failed (${how}); its output is above.\n`);
    process.exit(result.status || 1);
  }
  fs.writeFileSync(stampFile, stamp);
}

const child = spawn(process.execPath, [path.join(consoleDir, "scripts/server.mjs")], {
  cwd: consoleDir,
  env,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
