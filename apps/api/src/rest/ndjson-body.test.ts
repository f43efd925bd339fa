import { describe, expect, it } from "vitest";
import { ndjsonBody } from "./ndjson-body";

/** Batches of `size` numbered items, counting how many batches were asked for. */
function counted(batches: number, size: number, failAt?: number) {
  const state = { pulled: 0, closed: false };
  async function* generate() {
    try {
      for (let b = 0; b < batches; b++) {
        if (b === failAt) throw new Error("the database went away");
        state.pulled++;
        yield Array.from({ length: size }, (_, i) => ({ n: b * size + i }));
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, batches: generate() };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text;
}

describe("ndjsonBody", () => {
  it("writes one JSON item per line, every batch, in order", async () => {
    const { batches } = counted(3, 2);
    const text = await readAll(await ndjsonBody(batches));
    expect(text).toBe(`${[0, 1, 2, 3, 4, 5].map((n) => JSON.stringify({ n })).join("\n")}\n`);
  });

  it("writes nothing for no items (and skips empty batches)", async () => {
    async function* none() {
      yield [];
    }
    expect(await readAll(await ndjsonBody(none()))).toBe("");
    expect(await readAll(await ndjsonBody((async function* () {})()))).toBe("");
  });

  it("reads batches as the reader takes them, not all ahead", async () => {
    const { state, batches } = counted(1_000, 10);
    const stream = await ndjsonBody(batches);
    // Only the first batch is read before anything is sent.
    expect(state.pulled).toBe(1);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((r) => setTimeout(r, 20));
    expect(state.pulled).toBeLessThanOrEqual(4);
    // A reader that goes away stops the reading.
    await iterator.return?.();
    await new Promise((r) => setTimeout(r, 20));
    expect(state.closed).toBe(true);
    expect(state.pulled).toBeLessThanOrEqual(4);
  });

  it("rejects before sending when the first batch fails; errors the stream when a later one does", async () => {
    await expect(ndjsonBody(counted(3, 2, 0).batches)).rejects.toThrow("the database went away");
    const stream = await ndjsonBody(counted(3, 2, 2).batches);
    await expect(readAll(stream)).rejects.toThrow("the database went away");
  });
});
