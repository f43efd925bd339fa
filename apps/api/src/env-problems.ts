// Test helper: what readEnv refuses in an environment.
import { readEnv } from "./env";
import { EnvError } from "./startup-errors";

/** The problems readEnv reports for `source`; throws when it accepts the environment. */
export function envProblems(source: Record<string, string>): string[] {
  try {
    readEnv(source);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  throw new Error("readEnv accepted the environment");
}
