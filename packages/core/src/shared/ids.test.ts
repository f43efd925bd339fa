import { describe, expect, it } from "vitest";
import { newId } from "./ids";

describe("newId", () => {
  it("orders ids by creation, even within one millisecond", () => {
    const ids = Array.from({ length: 2000 }, () => newId("x"));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^x_[0-9a-z]{26}$/);
  });
});
