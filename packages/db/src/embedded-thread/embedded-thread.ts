import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { PortSocket } from "./port-socket";

/**
 * The embedded PostgreSQL (PGlite) running in its own thread (./worker.mjs), so its WebAssembly backend,
 * protocol handling and file I/O use the second core instead of the request thread's time. Clients are
 * ordinary pg connections whose socket is a MessagePort: the server talks to it exactly as it talks to a
 * PostgreSQL server (docs/architecture.md, "The embedded database").
 */
export interface EmbeddedThread {
  /** A new client connection, for pg's `stream` option. */
  socket(): PortSocket;
  /** Resolves once the database is open (or rejects with why it could not be). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** What went wrong, readably: PGlite's file system errors carry only an errno (e.g. 54, ENOTDIR). */
function describe(why: unknown): string {
  if (why instanceof Error && why.message) return why.message;
  if (why && typeof why === "object" && "errno" in why) return `file system error (errno ${why.errno})`;
  return typeof why === "string" ? why : JSON.stringify(why);
}

export function startEmbeddedThread(options: {
  /** Folder of the data files; absent keeps the database in memory. */
  dataDir?: string;
  startParams: string[];
  onError?: (error: unknown) => void;
}): EmbeddedThread {
  const worker = new Worker(new URL("./worker.mjs", import.meta.url), {
    workerData: { dataDir: options.dataDir, startParams: options.startParams },
    resourceLimits: { maxYoungGenerationSizeMb: 6, maxOldGenerationSizeMb: 96 },
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  // Open connections keep the process alive while they are in use, as sockets do; the thread itself does not.
  worker.unref();
  let opened = false;
  const ready = new Promise<void>((resolve, reject) => {
    const failed = (why: unknown) => reject(new Error(`embedded database failed to open: ${describe(why)}`));
    worker.once("message", (msg: { type: string; message?: string }) => {
      if (msg.type !== "ready") return failed(msg.message);
      opened = true;
      resolve();
    });
    worker.on("error", (error) => (opened ? options.onError?.(error) : failed(error)));
    exit.then(() => failed("its thread exited"));
  });
  ready.catch(() => {});
  // After a crash of the thread every query fails (and readiness with them); say why, once.
  let closing = false;
  exit.then(() => {
    if (opened && !closing) options.onError?.(new Error("the embedded database thread exited unexpectedly"));
  });

  const openPort = async (): Promise<MessagePort> => {
    await ready;
    if (exited) throw new Error("embedded database is closed");
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ type: "connect", port: port2 }, [port2]);
    return port1;
  };

  return {
    socket: () => new PortSocket(openPort),
    ready,
    async close() {
      if (exited) return;
      closing = true;
      await ready.catch(() => {});
      const closed = new Promise((resolve) =>
        worker.on("message", (msg: { type: string }) => msg.type === "closed" && resolve(undefined)),
      );
      worker.postMessage({ type: "close" });
      await Promise.race([closed, exit]);
      await worker.terminate();
    },
  };
}
