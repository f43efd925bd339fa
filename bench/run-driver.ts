import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { DriverResult } from "./driver";
import type { DriverJob } from "./workload";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/**
 * Forks the load driver (driver.ts) for one job; `onMark` hears when its recorded window starts and
 * ends, so the caller samples the server over that window only.
 */
export function runDriver(
  job: DriverJob,
  driverCpuProf: string | undefined,
  onMark: (mark: "recording" | "recorded") => void,
): Promise<DriverResult> {
  return new Promise((resolve, reject) => {
    const profile = driverCpuProf ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(driverCpuProf)}`] : [];
    const child = fork(path.join(HERE, "driver.ts"), [], {
      cwd: HERE,
      execArgv: ["--import", "tsx", ...profile],
    });
    let done = false;
    child.on(
      "message",
      (m: { mark?: "recording" | "recorded"; ok?: boolean; result?: DriverResult; error?: string }) => {
        if (m.mark) return onMark(m.mark);
        done = true;
        if (m.ok) resolve(m.result!);
        else reject(new Error(m.error));
      },
    );
    child.once("exit", (code) => {
      if (!done) reject(new Error(`load driver exited with ${code}`));
    });
    child.send(job);
  });
}
