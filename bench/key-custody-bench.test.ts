// `pnpm bench --keys pkcs11`: its option and the software/pkcs11 comparison it prints.
import { describe, expect, it } from "vitest";
import { settingRatios } from "./alternated-settings";
import { parseArgs } from "./args";
import type { DriverResult } from "./driver";

const result = (ops: number, throughput: number, p99: number) =>
  ({ ops, throughput, errors: 0, latency: { p50: p99 / 2, p99 } }) as unknown as DriverResult;

describe("pnpm bench --keys pkcs11", () => {
  it("takes pkcs11 only, and is a run of its own", () => {
    expect(parseArgs(["--keys", "pkcs11"]).keys).toBe("pkcs11");
    expect(parseArgs([]).keys).toBeUndefined();
    expect(() => parseArgs(["--keys", "kms"])).toThrow(/--keys is pkcs11/);
    expect(() => parseArgs(["--keys", "pkcs11", "--observability"])).toThrow(/pick one/);
  });

  it("reports the token against software keys per flow, each setting's rounds pooled", () => {
    const lines = settingRatios(
      [
        {
          setting: "software",
          round: 1,
          flow: "issuance",
          result: result(2000, 200, 10),
          serverCpuSeconds: 4,
        },
        {
          setting: "pkcs11",
          round: 1,
          flow: "issuance",
          result: result(1000, 100, 20),
          serverCpuSeconds: 2.5,
        },
        { setting: "software", round: 1, flow: "verification", result: result(0, 0, 0), serverCpuSeconds: 1 },
      ],
      "software",
      "pkcs11",
    );
    // software: 4 s / 2000 flows = 2 ms; pkcs11: 2.5 s / 1000 flows = 2.5 ms. No verification line: no flows.
    expect(lines).toEqual([
      "issuance: pkcs11 / software: server CPU per flow 1.250× (2.000 → 2.500 ms), throughput 0.50×, p99 2.00×",
    ]);
  });
});
