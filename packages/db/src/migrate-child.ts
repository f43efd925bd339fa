import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(here, "../../..");
const CLI_MIGRATE = path.join(here, "cli-migrate.ts");

/**
 * Applies pending migrations in a short-lived child process (`cli-migrate.ts deploy`). The schema
 * engine is a large WebAssembly module (its heap reaches several hundred MB); run in the server it
 * would stay in the server's memory for good. Resolves with the child's report, rejects with its stderr.
 * The embedded database must not be open in this process meanwhile (PGlite has one owner at a time).
 */
export function migrateInChildProcess(options: { databaseUrl?: string; dataDir: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI_MIGRATE, "deploy"], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: options.databaseUrl ?? "",
        DATA_DIR: path.resolve(options.dataDir),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(stdout.trim())
        : reject(new Error(`Migrations failed (exit ${code}): ${stderr.trim() || stdout.trim()}`)),
    );
  });
}
