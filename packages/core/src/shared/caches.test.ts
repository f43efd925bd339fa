import { describe, expect, it } from "vitest";
import { Caches, cacheSpec } from "./caches";

const rows = cacheSpec<{ id: string; status: string } | null>("test.rows", { max: 2 });

describe("Caches", () => {
  it("gives each Caches its own instance of a spec, so servers share nothing", async () => {
    const a = new Caches();
    const b = new Caches();
    await a.of(rows).get("x", async () => ({ id: "x", status: "active" }));
    expect(a.of(rows).peek("x")).toEqual({ id: "x", status: "active" });
    expect(b.of(rows).peek("x")).toBeUndefined();
    expect(a.sizes()).toEqual({ "test.rows": 1 });
  });

  it("stores only what keep accepts, and bounds entries least-recently-used first", async () => {
    const cache = new Caches().of(rows);
    await cache.get(
      "draft",
      async () => ({ id: "draft", status: "draft" }),
      (r) => r?.status === "active",
    );
    expect(cache.peek("draft")).toBeUndefined();
    await cache.get("missing", async () => null);
    expect(cache.peek("missing")).toBeUndefined();
    for (const id of ["a", "b"]) await cache.get(id, async () => ({ id, status: "active" }));
    cache.peek("a");
    await cache.get("c", async () => ({ id: "c", status: "active" }));
    expect(cache.peek("b")).toBeUndefined();
    expect(cache.peek("a")).toBeDefined();
  });

  it("does not store a load that began before a delete", async () => {
    const cache = new Caches().of(rows);
    let release!: () => void;
    const loading = cache.get("x", () => new Promise((r) => (release = () => r({ id: "x", status: "old" }))));
    cache.delete("x");
    release();
    expect(await loading).toEqual({ id: "x", status: "old" });
    expect(cache.peek("x")).toBeUndefined();
  });

  it("hands a taken value out once", () => {
    const cache = new Caches().of(rows);
    cache.set("x", { id: "x", status: "active" });
    expect(cache.take("x")).toEqual({ id: "x", status: "active" });
    expect(cache.take("x")).toBeUndefined();
  });

  it("lists the values held, and clears them all", async () => {
    const cache = new Caches().of(rows);
    cache.set("x", { id: "x", status: "active" });
    cache.set("y", { id: "y", status: "active" });
    expect([...cache.values()].map((row) => row?.id).sort()).toEqual(["x", "y"]);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.peek("x")).toBeUndefined();
  });
});
