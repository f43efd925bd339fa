import { describe, expect, it } from "vitest";
import { readEnv } from "./env";
import { envProblems as problems } from "./env-problems";

const TOKEN = `${"a".repeat(16)}0123456789abcdef`;

describe("metrics settings from the environment", () => {
  it("unset or empty: no metrics exposure at all", () => {
    expect(readEnv({}).metrics).toEqual({});
    expect(readEnv({ METRICS_PORT: "", METRICS_TOKEN: " ", METRICS_HOST: "" }).metrics).toEqual({});
  });

  it("reads the port, the host and the token", () => {
    expect(readEnv({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0", METRICS_TOKEN: TOKEN }).metrics).toEqual({
      port: 9464,
      host: "0.0.0.0",
      token: TOKEN,
    });
  });

  it("refuses a port out of range or equal to PORT, and a short or spaced token", () => {
    expect(problems({ METRICS_PORT: "70000" })).toEqual([
      'METRICS_PORT must be a whole number from 1 to 65535 (got "70000").',
    ]);
    expect(problems({ METRICS_PORT: "3000" })).toEqual(["METRICS_PORT must differ from PORT (3000)."]);
    for (const token of ["short", `${TOKEN} x`]) {
      expect(problems({ METRICS_TOKEN: token })[0]).toMatch(/^METRICS_TOKEN must be at least 32 printable/);
    }
  });
});
