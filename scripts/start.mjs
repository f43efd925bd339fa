#!/usr/bin/env node
// `pnpm start`: the API (which owns the embedded database) and the console together, then where to go.
// `pnpm start --dev` runs both with reload (tsx watch, next dev). Ctrl-C stops both.
// The API runs in the mode NODE_ENV / DEVELOPMENT_MODE say; the console is built and served in
// production mode (next dev: development) whatever NODE_ENV is (apps/console/scripts/next-env.mjs).
// If the API stops, the console is stopped too; if the console fails (its build, say), the API keeps
// running and the script says so.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nextEnv } from "../apps/console/scripts/next-env.mjs";
import { startBanner } from "./start-banner.mjs";

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
/** Children that have exited, by name. */
const exited = new Map();
function run(name, command, args, env) {
  const child = spawn(command, args, {
    cwd: root,
    env,
    stdio: "inherit",
    detached: true, // own process group, so stopping reaches tsx/next under pnpm
  });
  child.on("exit", (code, signal) => {
    const how = code === null ? `signal ${signal}` : `exit ${code}`;
    exited.set(name, how);
    if (stopping) return;
    if (name === "Console") {
      process.stderr.write(
        [
          "",
          `The console stopped (${how}); its output above says why. The API keeps running at ${apiUrl}`,
          "(REST, /docs). Fix the console and run pnpm start again to get it back; Ctrl-C stops the API.",
          "",
        ].join("\n"),
      );
      return;
    }
    process.stderr.write(
      `\nThe API stopped (${how}); its output above says why. Stopping the console too.\n`,
    );
    stop(code || 1);
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code; // also when the loop empties before the timer below
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  }
  setTimeout(() => process.exit(code), 1500).unref();
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

/** Waits until `url` answers, or `name` has exited, or the time is up. */
async function waitFor(name, url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping && !exited.has(name)) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status < 500) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

// The API's mode is the caller's NODE_ENV / DEVELOPMENT_MODE; only the console's Next.js gets its own.
run("API", "pnpm", ["--silent", "--filter", "@cred/api", dev ? "dev" : "start"], process.env);
const consoleEnv = { ...nextEnv(process.env, dev ? "development" : "production"), API_ORIGIN: apiOrigin };
if (dev) {
  run(
    "Console",
    "pnpm",
    ["--silent", "--filter", "@cred/console", "exec", "next", "dev", "-p", consolePort],
    consoleEnv,
  );
} else {
  run("Console", process.execPath, ["apps/console/scripts/serve.mjs"], {
    ...consoleEnv,
    CONSOLE_PORT: consolePort,
  });
}

const [apiUp, consoleUp] = await Promise.all([
  waitFor("API", `${apiOrigin}/healthz`, 120_000),
  waitFor("Console", `http://127.0.0.1:${consolePort}/`, 300_000),
]);
if (!stopping && apiUp) {
  const bootstrapFile = path.join(dataDir, "bootstrap.json");
  let bootstrap = null;
  let firstStart = false;
  try {
    bootstrap = JSON.parse(fs.readFileSync(bootstrapFile, "utf8"));
    firstStart = fs.statSync(bootstrapFile).mtimeMs >= startedAt;
  } catch {}
  const relative = path.relative(root, bootstrapFile);
  const lines = startBanner({
    consoleUp,
    consoleExit: exited.get("Console"),
    consoleUrl,
    apiUrl,
    bootstrap,
    firstStart,
    where: relative.startsWith("..") ? bootstrapFile : relative,
  });
  process.stdout.write(`${lines.join("\n")}\n`);
}
