// bench/processes.ts: a service the bench started does not outlive a bench that ends on an error.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const HERE = path.dirname(fileURLToPath(import.meta.url));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("startService", () => {
  it("kills the service when the bench process ends on an uncaught error", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-orphan-"));
    const script = path.join(dir, "crashing-bench.mts");
    fs.writeFileSync(
      script,
      `import { startService } from ${JSON.stringify(pathToFileURL(path.join(HERE, "processes.ts")).href)};
const port = 20000 + Math.floor(Math.random() * 20000);
const service = await startService({
  name: "probe",
  args: ["-e", "require('node:http').createServer((q, s) => s.end('ok')).listen(" + port + ", '127.0.0.1')"],
  cwd: ${JSON.stringify(dir)},
  port,
  env: {},
  readyPath: "/",
});
console.log(service.pid);
throw new Error("the bench failed");
`,
    );
    const printed = await new Promise<string>((resolve) => {
      execFile(process.execPath, ["--import", "tsx", script], { cwd: HERE }, (_error, stdout) =>
        resolve(stdout),
      );
    });
    const pid = Number(printed.trim());
    expect(pid).toBeGreaterThan(0);
    // SIGKILL is delivered at once; give the kernel a moment to reap it.
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);
});
