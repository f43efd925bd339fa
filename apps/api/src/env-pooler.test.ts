import { describe, expect, it } from "vitest";
import { readEnv } from "./env";
import { envProblems as problems } from "./env-problems";

const POOLED = "postgres://u:p@pooler:6432/credentials?pgbouncer=true";
const DIRECT = "postgres://u:p@db:5432/credentials";

describe("DATABASE_URL through a transaction pooler", () => {
  it("needs DIRECT_DATABASE_URL (migrations and LISTEN need a session)", () => {
    expect(problems({ DATABASE_URL: POOLED })).toEqual([
      expect.stringMatching(
        /^DIRECT_DATABASE_URL must be set when DATABASE_URL goes through a transaction pooler/,
      ),
    ]);
    expect(readEnv({ DATABASE_URL: POOLED, DIRECT_DATABASE_URL: DIRECT }).directDatabaseUrl).toBe(DIRECT);
  });

  it("a direct DATABASE_URL needs nothing more; a DIRECT_DATABASE_URL must be a postgres URL", () => {
    expect(readEnv({ DATABASE_URL: DIRECT }).directDatabaseUrl).toBeUndefined();
    expect(problems({ DATABASE_URL: POOLED, DIRECT_DATABASE_URL: "db:5432" })).toEqual([
      expect.stringMatching(/^DIRECT_DATABASE_URL must be a postgres:\/\//),
    ]);
  });
});
