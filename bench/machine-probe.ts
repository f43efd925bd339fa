// A machine probe for the alternated runs: a process of its own that does one fixed piece of work 10 times
// a second and counts its CPU time. The piece has a compute part (SHA-256 over 256 KiB), an allocating
// part (a JSON document written and read back) and a memory part (100,000 reads at scattered places of a
// 64 MiB array, each likely a cache miss): a first probe with only the first two, all in cache, moved
// far less than the server and the driver did from window to window (docs/performance.md, Session 30).
// Its CPU per piece says how fast the machine ran over a window, from outside the server and the load
// driver: the probe talks to neither, so nothing a setting changes in them reaches its figure except
// through the cores they share.
import { type ChildProcess, fork } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PIECES_PER_SECOND = 10;
const READS = 100_000;
const DATA = Buffer.alloc(256 * 1024, 7);
const DOCUMENT = {
  items: Array.from({ length: 200 }, (_, i) => ({ id: `item-${i}`, n: i, tags: ["a", "b", `t${i % 7}`] })),
};
/** 64 MiB read at scattered places; made on the first piece, so only the probe's process holds it. */
let scattered: Float64Array | undefined;

/** One piece of the probe's work; returns something derived from it so none of it is optimised away. */
export function probePiece(): number {
  const digest = createHash("sha256").update(DATA).digest();
  const parsed = JSON.parse(JSON.stringify(DOCUMENT)) as typeof DOCUMENT;
  // The same scattered places every time (a fixed xorshift sequence).
  scattered ??= new Float64Array((64 * 1024 * 1024) / 8).fill(1);
  let x = 2463534242;
  let sum = 0;
  for (let i = 0; i < READS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    sum += scattered[(x >>> 0) % scattered.length]!;
  }
  return digest[0]! + parsed.items.length + sum;
}

export interface ProbeReading {
  pieces: number;
  cpuMs: number;
}

/** Starts the probe process; `window()` starts a window and returns its end, which reads the probe. */
export function startMachineProbe() {
  const file = fileURLToPath(import.meta.url);
  const child: ChildProcess = fork(file, ["--probe"], {
    cwd: path.dirname(file),
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  let pending: { resolve(reading: ProbeReading): void; reject(error: Error): void } | undefined;
  let exited = false;
  child.on("message", (reading: ProbeReading) => {
    pending?.resolve(reading);
    pending = undefined;
  });
  // A probe that died fails its windows (the runs then have no probe figure) rather than hanging them.
  child.on("exit", () => {
    exited = true;
    pending?.reject(new Error("the machine probe exited"));
    pending = undefined;
  });
  const ask = () =>
    new Promise<ProbeReading>((resolve, reject) => {
      if (exited) return reject(new Error("the machine probe exited"));
      pending = { resolve, reject };
      child.send("read", (error) => error && reject(error));
    });
  return {
    /** Starts a window now; its function ends it and gives the probe's CPU and pieces over it. */
    async window(): Promise<() => Promise<ProbeReading>> {
      const start = await ask();
      return async () => {
        const end = await ask();
        return { pieces: end.pieces - start.pieces, cpuMs: end.cpuMs - start.cpuMs };
      };
    },
    stop() {
      child.kill();
    },
  };
}

if (process.argv.includes("--probe") && process.send) {
  let pieces = 0;
  const timer = setInterval(() => {
    probePiece();
    pieces++;
  }, 1000 / PIECES_PER_SECOND);
  process.on("message", () => {
    const cpu = process.cpuUsage();
    process.send!({ pieces, cpuMs: (cpu.user + cpu.system) / 1000 } satisfies ProbeReading);
  });
  process.on("disconnect", () => clearInterval(timer));
}
