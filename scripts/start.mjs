#!/usr/bin/env node
// `pnpm start`: the API (which owns the embedded database) and the console together, then where to go.
// `pnpm start --dev` runs both with reload (tsx watch, next dev). Ctrl-C stops both.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dev = process.argv.includes("--dev");
const apiPort = process.env.PORT || "3000";
const consolePort = process.env.CONSOLE_PORT || "3001";
const apiOrigin = `http://127.0.0.1:${apiPort}`;
const consoleUrl = `http://localhost:${consolePort}`;
const apiUrl = process.env.PUBLIC_BASE_URL || `http://localhost:${apiPort}`;
const dataDir = path.resolve(root, process.env.DATA_DIR || ".data");

const startedAt = Date.now();
const children = [];
function run(name, command, args, env = {}) {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: "inherit",
    detached: true, // own process group, so stopping reaches tsx/next under pnpm
  });
  child.on("exit", (code) => {
    if (!stopping) {
      process.stderr.write(`\n${name} exited (${code ?? "signal"}); stopping.\n`);
      stop(code ?? 1);
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  }
  setTimeout(() => process.exit(code), 1500).unref();
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

async function waitFor(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

run("API", "pnpm", ["--silent", "--filter", "@cred/api", dev ? "dev" : "start"]);
if (dev) {
  run(
    "Console",
    "pnpm",
    ["--silent", "--filter", "@cred/console", "exec", "next", "dev", "-p", consolePort],
    {
      API_ORIGIN: apiOrigin,
    },
  );
} else {
  run("Console", process.execPath, ["apps/console/scripts/serve.mjs"], {
    API_ORIGIN: apiOrigin,
    CONSOLE_PORT: consolePort,
  });
}

const [apiUp, consoleUp] = await Promise.all([
  waitFor(`${apiOrigin}/healthz`, 120_000),
  waitFor(`http://127.0.0.1:${consolePort}/`, 300_000),
]);
if (!stopping && apiUp && consoleUp) {
  const lines = [
    "",
    "Ready.",
    `  Console:  ${consoleUrl}`,
    `  API:      ${apiUrl}   (reference: ${apiUrl}/docs)`,
  ];
  const bootstrapFile = path.join(dataDir, "bootstrap.json");
  if (fs.existsSync(bootstrapFile)) {
    try {
      const boot = JSON.parse(fs.readFileSync(bootstrapFile, "utf8"));
      const relative = path.relative(root, bootstrapFile);
      const where = relative.startsWith("..") ? bootstrapFile : relative;
      if (fs.statSync(bootstrapFile).mtimeMs >= startedAt) {
        // First start: repeat what the API printed above, since the console build output followed it.
        lines.push(`  Console sign-in:  ${boot.consoleEmail} / ${boot.consolePassword}`);
        lines.push(`  Sandbox API key:  ${boot.apiKey}`);
        lines.push(`  (shown once; also in ${where})`);
      } else {
        lines.push(`  Console sign-in:  ${boot.consoleEmail} (password in ${where})`);
      }
    } catch {}
  } else {
    lines.push("  Bootstrap credentials were printed by the API on its first start.");
  }
  lines.push("  Press Ctrl-C to stop.", "");
  process.stdout.write(`${lines.join("\n")}\n`);
}
