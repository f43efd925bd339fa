import { describe, expect, it } from "vitest";
import { MemoCache } from "./memo-cache";

describe("MemoCache", () => {
  it("keeps what it loaded, and loads again after a delete", async () => {
    const cache = new MemoCache<number>();
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get("k", load)).toBe(1);
    expect(await cache.get("k", load)).toBe(1);
    cache.delete("k");
    expect(await cache.get("k", load)).toBe(2);
  });

  it("does not store a value whose load began before a delete", async () => {
    const cache = new MemoCache<string>();
    let release: (value: string) => void = () => {};
    const stale = cache.get("k", () => new Promise<string>((resolve) => (release = resolve)));
    cache.delete("k"); // the change committed while the old row was being read
    release("old row");
    expect(await stale).toBe("old row");
    expect(await cache.get("k", async () => "new row")).toBe("new row");
  });
});
