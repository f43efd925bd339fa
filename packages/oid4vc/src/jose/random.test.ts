import { describe, expect, it } from "vitest";
import { pooledRandomBytes } from "./random";

describe("pooledRandomBytes", () => {
  it("never hands out the same bytes twice, across pool refills, and returns independent copies", () => {
    const seen = new Set<string>();
    const draws = Array.from({ length: 3000 }, (_, i) => pooledRandomBytes(8 + (i % 25)));
    for (const d of draws) seen.add(d.toString("hex"));
    expect(seen.size).toBe(draws.length);
    expect(draws.every((d, i) => d.length === 8 + (i % 25))).toBe(true);
    // Copies: overwriting what one caller got changes nobody else's bytes, before or after it.
    const first = pooledRandomBytes(16);
    const middle = pooledRandomBytes(16);
    const last = pooledRandomBytes(16);
    const [firstHex, lastHex] = [first.toString("hex"), last.toString("hex")];
    middle.fill(0);
    expect([first.toString("hex"), last.toString("hex")]).toEqual([firstHex, lastHex]);
  });

  it("serves large requests directly, and its bytes look uniformly random", () => {
    expect(pooledRandomBytes(4096)).toHaveLength(4096);
    const counts = new Array(256).fill(0);
    for (let i = 0; i < 2000; i++) for (const b of pooledRandomBytes(32)) counts[b]++;
    // 64 000 bytes, 250 expected per value: every value occurs, none wildly often.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(370);
  });
});
