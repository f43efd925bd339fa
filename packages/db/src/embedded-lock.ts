import fs from "node:fs";
import path from "node:path";

/** The embedded database folder is open in another live process. */
export class EmbeddedDatabaseInUse extends Error {
  override readonly name = "EmbeddedDatabaseInUse";
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Takes the embedded database folder for this process: PGlite is a single-user PostgreSQL, and a second
 * process opening the same files (the CLI while the API runs) would work on its own copy of them and
 * lose its writes without a word. The lock is a file holding the owner's pid beside `pgdata`; one left
 * by a process that is gone is taken over. Returns the release function.
 */
export function lockEmbeddedDatabase(pgdataDir: string): () => void {
  const file = path.join(path.dirname(pgdataDir), "pgdata.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 });
      return () => {
        try {
          if (fs.readFileSync(file, "utf8") === String(process.pid)) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(fs.readFileSync(file, "utf8").trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new EmbeddedDatabaseInUse(
          `The embedded database in ${path.dirname(pgdataDir)} is in use by process ${owner} (the API, or another command). Stop it first, or run the API on PostgreSQL (DATABASE_URL) to use the CLI beside it.`,
        );
      }
      fs.rmSync(file, { force: true }); // left by a process that is gone
    }
  }
  throw new EmbeddedDatabaseInUse(`Could not take the lock ${file}.`);
}
