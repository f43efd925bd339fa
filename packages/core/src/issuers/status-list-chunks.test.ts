import { getStatus, setStatus } from "@cred/oid4vc";
import { describe, expect, it } from "vitest";
import {
  assembleStatusList,
  statusChunkLength,
  statusEntryLocation,
  statusListBytes,
} from "./status-list-chunks";

describe("status list chunks", () => {
  it("locates every entry in its 1 KiB chunk, and reassembles the list from chunk rows", () => {
    const size = 20_000; // 5 000 bytes at 2 bits: chunks of 1024 × 4 and a last one of 904
    expect(statusListBytes(size, 2)).toBe(5000);
    expect([0, 1, 2, 3, 4].map((c) => statusChunkLength(size, 2, c))).toEqual([1024, 1024, 1024, 1024, 904]);
    const whole = new Uint8Array(statusListBytes(size, 2));
    const chunks = new Map<number, Uint8Array>();
    for (const idx of [0, 3, 4095, 4096, 8191, 12_345, 19_999]) {
      setStatus(whole, 2, idx, 1);
      const at = statusEntryLocation(idx, 2);
      const chunk = chunks.get(at.chunk) ?? new Uint8Array(statusChunkLength(size, 2, at.chunk));
      chunk[at.offset]! |= 1 << at.shift;
      chunks.set(at.chunk, chunk);
    }
    const assembled = assembleStatusList(
      size,
      2,
      [...chunks].map(([chunk, data]) => ({ chunk, data })),
    );
    expect(assembled).toEqual(whole);
    expect(getStatus(assembled, 2, 19_999)).toBe(1);
    expect(getStatus(assembled, 2, 19_998)).toBe(0);
    expect(chunks.has(2)).toBe(false); // untouched chunks need no row
  });
});
