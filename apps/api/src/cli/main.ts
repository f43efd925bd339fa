// Operator CLI: tenants, API keys and staff memberships (see README). On PostgreSQL, or on an embedded
// database no process holds, it opens the database itself; while the API holds the embedded database,
// the API runs the command (its operator socket, operator-socket.ts). Same output and exit codes either way.
import { userInfo } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { Caches, SecretBox } from "@cred/core";
import { applyMigrations, EmbeddedDatabaseInUse, openDatabase } from "@cred/db";
import { type Env, loadMasterKeys, orExit, readEnvOrExit } from "../env";
import { type CliCommand, type CommandResult, parseCommandLine, runCommand, USAGE } from "./command";
import {
  OperatorSocketRefused,
  OperatorSocketUnavailable,
  operatorSocketPath,
  runThroughApi,
} from "./operator-socket";

/** How long the CLI waits for the API's operator socket while the API holds the database (it may be starting). */
const SOCKET_WAIT_MS = 15_000;

function finish(result: CommandResult): never {
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  // The migration engine leaves timers behind; a CLI run is over once its work is.
  process.exit(result.exitCode);
}

/** The command on the database this process opens; undefined when the API holds the embedded database. */
async function runHere(env: Env, command: CliCommand, operatingSystemUser: string) {
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
  } catch (error) {
    if (error instanceof EmbeddedDatabaseInUse) return { inUse: error };
    throw error;
  }
  try {
    await applyMigrations(db.adapterFactory);
    return {
      result: await runCommand(
        {
          root: db.root,
          caches: new Caches(),
          secretBox: () => {
            const { masterKey, previousMasterKeys } = orExit(() => loadMasterKeys(env));
            return new SecretBox(masterKey, previousMasterKeys);
          },
          operatingSystemUser,
          ...(env.pkcs11 ? { tokenKeys: () => tokenKeys(env.pkcs11!) } : {}),
        },
        command,
      ),
    };
  } finally {
    await db.close();
  }
}

/** The key pairs in the PKCS#11 token PKCS11_* name (`issuer-keys list`), through a provider of this process's own. */
async function tokenKeys(settings: NonNullable<Env["pkcs11"]>) {
  const { Pkcs11KeyProvider } = await import("../key-custody/pkcs11-key-provider");
  const provider = new Pkcs11KeyProvider(settings);
  try {
    return await provider.listKeys();
  } finally {
    await provider.close();
  }
}

/** The command through the API's operator socket; undefined when nothing listens there. */
async function runThere(socketPath: string, command: CliCommand, operatingSystemUser: string) {
  try {
    return await runThroughApi(socketPath, command, operatingSystemUser);
  } catch (error) {
    if (error instanceof OperatorSocketUnavailable) return undefined;
    throw error;
  }
}

const parsed = parseCommandLine(process.argv.slice(2));
if (parsed === "help") {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if ("exitCode" in parsed) finish(parsed);

const env = readEnvOrExit();
const operatingSystemUser = userInfo().username;
try {
  if (env.databaseUrl) finish((await runHere(env, parsed, operatingSystemUser)).result as CommandResult);
  const socketPath = operatorSocketPath(env.dataDir);
  const there = await runThere(socketPath, parsed, operatingSystemUser);
  if (there) finish(there);
  const here = await runHere(env, parsed, operatingSystemUser);
  if (here.result) finish(here.result);
  // The API holds the database but its socket did not answer yet: it may be starting (migrations).
  for (const deadline = Date.now() + SOCKET_WAIT_MS; Date.now() < deadline; await sleep(250)) {
    const later = await runThere(socketPath, parsed, operatingSystemUser);
    if (later) finish(later);
  }
  finish({
    exitCode: 1,
    stdout: "",
    stderr: `${here.inUse?.message} Its operator socket (${socketPath}) did not answer.\n`,
  });
} catch (error) {
  if (error instanceof OperatorSocketRefused)
    finish({ exitCode: 1, stdout: "", stderr: `${error.message}\n` });
  // An unexpected error: its stack, as Node prints an uncaught one.
  finish({ exitCode: 1, stdout: "", stderr: `${(error as Error).stack ?? String(error)}\n` });
}
