import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map";

describe("BoundedMap", () => {
  it("drops the oldest entry when a new key would exceed the bound, and hands a value out once", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2).set("a", 3); // an existing key evicts nothing
    expect([...map.keys()]).toEqual(["a", "b"]);
    map.set("c", 4);
    expect([...map.entries()]).toEqual([
      ["b", 2],
      ["c", 4],
    ]);
    expect(map.take("b")).toBe(2);
    expect(map.take("b")).toBeUndefined();
    expect(map.size).toBe(1);
  });
});
