// The machine probe (machine-probe.ts): a process of its own whose CPU per piece of fixed work is read
// over a window.
import { describe, expect, it } from "vitest";
import { probePiece, startMachineProbe } from "./machine-probe";

describe("machine probe", () => {
  it("does the same piece of work each time", () => {
    expect(probePiece()).toBe(probePiece());
  });

  it("counts its pieces and their CPU over a window", async () => {
    const probe = startMachineProbe();
    try {
      const end = await probe.window();
      await new Promise((resolve) => setTimeout(resolve, 600));
      const reading = await end();
      // 10 pieces a second: about 6 in 600 ms, fewer on a busy machine, never none.
      expect(reading.pieces).toBeGreaterThan(1);
      expect(reading.pieces).toBeLessThan(12);
      expect(reading.cpuMs).toBeGreaterThan(0);
    } finally {
      probe.stop();
    }
  }, 20_000);

  it("fails a window of a probe that died instead of hanging it", async () => {
    const probe = startMachineProbe();
    await (await probe.window())();
    probe.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(probe.window()).rejects.toThrow(/probe exited/);
  }, 20_000);
});
