import { randomBytes } from "node:crypto";
import pg from "pg";

/** A fresh, empty database on the PostgreSQL server named by BENCH_POSTGRES_URL or TEST_POSTGRES_URL. */
export async function freshPostgresDatabase(
  prefix = "bench",
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const adminUrl = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL;
  if (!adminUrl)
    throw new Error("--db postgres needs BENCH_POSTGRES_URL or TEST_POSTGRES_URL (a server URL).");
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
