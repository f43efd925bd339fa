// The operator socket: while the API runs on the embedded database (which one process alone can open),
// the CLI has the API run its commands. A Unix domain socket in DATA_DIR, mode 0600: only the operating-
// system user the API runs as (and root) can connect, as with PostgreSQL's peer authentication; nothing
// is reachable over the network. One request a connection: a JSON line in, a JSON line out.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { AppDeps } from "@cred/core";
import { z } from "zod";
import { type CliCommand, type CommandResult, runCommand, ZCliCommand } from "./command";

/** Where the operator socket of the embedded database in `dataDir` listens. */
export function operatorSocketPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), "operator.sock");
}

const ZOperatorRequest = z.object({ command: ZCliCommand, operatingSystemUser: z.string().min(1).max(256) });
type OperatorRequest = z.infer<typeof ZOperatorRequest>;
const ZCommandResult = z.object({ exitCode: z.number().int(), stdout: z.string(), stderr: z.string() });

/** A request line longer than this is refused (a command line is a few hundred bytes). */
const MAX_REQUEST_BYTES = 64 * 1024;
/** A client that sends no complete request in this time is disconnected. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface OperatorSocket {
  readonly path: string;
  /** Stops accepting, waits for commands in flight, removes the socket file. */
  close(): Promise<void>;
}

interface Log {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Listens on `socketPath` and runs each command with the API's database, caches and master keys, so
 * what a command changes takes effect in the API at once (a revoked key is refused on its next call).
 * Replaces a socket file left by a process that is gone (the caller holds the embedded database lock).
 */
export async function listenForOperators(
  socketPath: string,
  deps: Pick<AppDeps, "database" | "caches" | "secretBox" | "keyCustody">,
  log: Log,
): Promise<OperatorSocket> {
  const server = net.createServer((connection) => serve(connection, deps, log));
  fs.rmSync(socketPath, { force: true });
  // Created as 0600 where the process may set its umask (not in a worker thread), chmod-ed to 0600 anyway:
  // under the usual umask 022 a socket is 0755 until then, and connecting needs write permission.
  let restoreUmask: (() => void) | undefined;
  try {
    const previous = process.umask(0o177);
    restoreUmask = () => process.umask(previous);
  } catch {
    // worker thread: chmod alone
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve();
      });
      restoreUmask?.();
      restoreUmask = undefined;
    });
  } finally {
    restoreUmask?.();
  }
  fs.chmodSync(socketPath, 0o600);
  log.info({ socket: socketPath }, "operator socket listening (pnpm cli runs its commands here)");
  return {
    path: socketPath,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(socketPath, { force: true });
    },
  };
}

function serve(
  connection: net.Socket,
  deps: Pick<AppDeps, "database" | "caches" | "secretBox" | "keyCustody">,
  log: Log,
): void {
  let received = "";
  let handled = false;
  connection.setEncoding("utf8");
  connection.setTimeout(REQUEST_TIMEOUT_MS, () => {
    if (!handled) connection.destroy();
  });
  const answer = (result: CommandResult) => {
    connection.end(`${JSON.stringify(result)}\n`);
  };
  connection.on("error", () => {}); // a client gone mid-answer: nothing to tell it
  connection.on("data", (chunk: string) => {
    if (handled) return;
    received += chunk;
    const end = received.indexOf("\n");
    if (end < 0) {
      if (received.length > MAX_REQUEST_BYTES) {
        handled = true;
        answer({ exitCode: 2, stdout: "", stderr: "The command is too long.\n" });
      }
      return;
    }
    handled = true;
    connection.setTimeout(0);
    let request: OperatorRequest;
    try {
      request = ZOperatorRequest.parse(JSON.parse(received.slice(0, end)));
    } catch {
      answer({
        exitCode: 2,
        stdout: "",
        stderr: "The API could not read the command (a CLI of another version?).\n",
      });
      return;
    }
    void runForOperator(deps, request, log).then(answer);
  });
}

async function runForOperator(
  deps: Pick<AppDeps, "database" | "caches" | "secretBox" | "keyCustody">,
  request: OperatorRequest,
  log: Log,
): Promise<CommandResult> {
  const [group, action] = request.command.positionals;
  // The command and who ran it, never its options or output (keys and passwords are shown once).
  log.info(
    { command: `${group ?? ""} ${action ?? ""}`.trim(), operatingSystemUser: request.operatingSystemUser },
    "operator command",
  );
  try {
    return await runCommand(
      {
        root: deps.database.root,
        caches: deps.caches,
        secretBox: () => deps.secretBox,
        operatingSystemUser: request.operatingSystemUser,
        ...tokenKeysOf(deps),
      },
      request.command,
    );
  } catch (err) {
    log.error({ err }, "operator command failed");
    return { exitCode: 1, stdout: "", stderr: `${(err as Error).message || String(err)}\n` };
  }
}

/** The API's PKCS#11 token's key pairs, for `issuer-keys list`, when it has one (a provider that lists keys). */
function tokenKeysOf(deps: Pick<AppDeps, "keyCustody">) {
  if (!deps.keyCustody.has("pkcs11")) return {};
  const provider = deps.keyCustody.provider("pkcs11");
  return provider.listKeys ? { tokenKeys: () => provider.listKeys!() } : {};
}

/** The API does not listen on the socket (none there, or left by a process that is gone). */
export class OperatorSocketUnavailable extends Error {
  override readonly name = "OperatorSocketUnavailable";
}

/** The socket is there but not open to this user (it is the API's user's alone, mode 0600). */
export class OperatorSocketRefused extends Error {
  override readonly name = "OperatorSocketRefused";
}

/** Sends a command to the API listening on `socketPath` and returns what it printed and its exit code. */
export function runThroughApi(
  socketPath: string,
  command: CliCommand,
  operatingSystemUser: string,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const connection = net.createConnection(socketPath);
    let received = "";
    let connected = false;
    connection.setEncoding("utf8");
    connection.on("connect", () => {
      connected = true;
      connection.write(`${JSON.stringify({ command, operatingSystemUser } satisfies OperatorRequest)}\n`);
    });
    connection.on("data", (chunk: string) => {
      received += chunk;
    });
    connection.on("error", (error: NodeJS.ErrnoException) => {
      if (
        !connected &&
        ["ENOENT", "ECONNREFUSED", "ENOTSOCK", "ENAMETOOLONG", "EINVAL"].includes(error.code ?? "")
      )
        reject(new OperatorSocketUnavailable(`${socketPath}: ${error.code}`));
      else if (!connected && (error.code === "EACCES" || error.code === "EPERM"))
        reject(
          new OperatorSocketRefused(
            `The API's operator socket ${socketPath} is open to the operating-system user the API runs as only: run the CLI as that user.`,
          ),
        );
      else reject(error);
    });
    connection.on("end", () => {
      try {
        resolve(ZCommandResult.parse(JSON.parse(received)));
      } catch {
        reject(new Error(`The API at ${socketPath} closed the connection without an answer.`));
      }
    });
  });
}
