import { describe, expect, it } from "vitest";
import { readEnv } from "./env";
import { EnvError } from "./startup-errors";

describe("SHUTDOWN_DRAIN_SECONDS", () => {
  it("is 0 unless set, and a whole number of seconds up to 300", () => {
    expect(readEnv({}).shutdownDrainSeconds).toBe(0);
    expect(readEnv({ SHUTDOWN_DRAIN_SECONDS: "10" }).shutdownDrainSeconds).toBe(10);
    expect(readEnv({ SHUTDOWN_DRAIN_SECONDS: "0" }).shutdownDrainSeconds).toBe(0);
    for (const bad of ["-1", "1.5", "301", "soon"]) {
      expect(() => readEnv({ SHUTDOWN_DRAIN_SECONDS: bad }), bad).toThrow(EnvError);
    }
  });
});
