// The Credo peer's in-memory StorageService against Credo's storage contract: serialised copies,
// duplicate and missing records, and the tag query language ($and / $or / $not, equality, arrays).
import { type AgentContext, GenericRecord, RecordDuplicateError, RecordNotFoundError } from "@credo-ts/core";
import { describe, expect, it } from "vitest";
import { InMemoryStorageService, matches } from "./storage";

const context = { contextCorrelationId: "default" } as AgentContext;
const other = { contextCorrelationId: "tenant-2" } as AgentContext;

function record(id: string, tags: Record<string, string | boolean | string[] | undefined>) {
  const r = new GenericRecord({ id, content: { id }, tags: tags as never });
  return r;
}

async function seeded() {
  const storage = new InMemoryStorageService<GenericRecord>();
  await storage.save(context, record("a", { state: "open", kind: "x", roles: ["r1", "r2"], active: true }));
  await storage.save(context, record("b", { state: "open", kind: "y", roles: ["r2"], active: false }));
  await storage.save(context, record("c", { state: "done", kind: "x", roles: [] }));
  return storage;
}

const ids = (records: GenericRecord[]) => records.map((r) => r.id).sort();

describe("InMemoryStorageService", () => {
  it("returns a fresh copy of what was saved, not the saved object", async () => {
    const storage = await seeded();
    const a = await storage.getById(context, GenericRecord, "a");
    expect(a).toBeInstanceOf(GenericRecord);
    expect(a.content).toEqual({ id: "a" });
    expect(a.getTags()).toMatchObject({ state: "open", roles: ["r1", "r2"] });
    a.content = { changed: true };
    expect((await storage.getById(context, GenericRecord, "a")).content).toEqual({ id: "a" });
  });

  it("refuses a duplicate id and reports missing records as Credo's errors", async () => {
    const storage = await seeded();
    await expect(storage.save(context, record("a", {}))).rejects.toBeInstanceOf(RecordDuplicateError);
    await expect(storage.getById(context, GenericRecord, "z")).rejects.toBeInstanceOf(RecordNotFoundError);
    await expect(storage.update(context, record("z", {}))).rejects.toBeInstanceOf(RecordNotFoundError);
    await expect(storage.deleteById(context, GenericRecord, "z")).rejects.toBeInstanceOf(RecordNotFoundError);
    // Records of another agent context are not visible.
    await expect(storage.getById(other, GenericRecord, "a")).rejects.toBeInstanceOf(RecordNotFoundError);
  });

  it("answers equality, array and boolean queries", async () => {
    const storage = await seeded();
    expect(ids(await storage.findByQuery(context, GenericRecord, { state: "open" }))).toEqual(["a", "b"]);
    expect(ids(await storage.findByQuery(context, GenericRecord, { state: "open", kind: "x" }))).toEqual([
      "a",
    ]);
    expect(ids(await storage.findByQuery(context, GenericRecord, { roles: ["r2"] }))).toEqual(["a", "b"]);
    expect(ids(await storage.findByQuery(context, GenericRecord, { roles: ["r1", "r2"] }))).toEqual(["a"]);
    expect(ids(await storage.findByQuery(context, GenericRecord, { active: false }))).toEqual(["b"]);
    expect(ids(await storage.findByQuery(context, GenericRecord, { state: "gone" }))).toEqual([]);
    expect(ids(await storage.findByQuery(context, GenericRecord, {}))).toEqual(["a", "b", "c"]);
  });

  it("answers $and, $or and $not", async () => {
    const storage = await seeded();
    const find = (query: object) => storage.findByQuery(context, GenericRecord, query as never).then(ids);
    expect(await find({ $or: [{ state: "done" }, { kind: "y" }] })).toEqual(["b", "c"]);
    expect(await find({ $and: [{ state: "open" }, { $not: { kind: "x" } }] })).toEqual(["b"]);
    expect(await find({ $not: { state: "open" } })).toEqual(["c"]);
    expect(await find({ kind: "x", $or: [{ state: "done" }, { active: true }] })).toEqual(["a", "c"]);
  });

  it("re-indexes on update and forgets on delete", async () => {
    const storage = await seeded();
    const a = await storage.getById(context, GenericRecord, "a");
    a.setTags({ ...a.getTags(), state: "done" } as never);
    await storage.update(context, a);
    expect(ids(await storage.findByQuery(context, GenericRecord, { state: "open" }))).toEqual(["b"]);
    expect(ids(await storage.findByQuery(context, GenericRecord, { state: "done" }))).toEqual(["a", "c"]);
    await storage.delete(context, a);
    expect(ids(await storage.findByQuery(context, GenericRecord, { state: "done" }))).toEqual(["c"]);
    expect(ids(await storage.getAll(context, GenericRecord))).toEqual(["b", "c"]);
  });

  it("applies offset and limit after matching", async () => {
    const storage = await seeded();
    const page = await storage.findByQuery(context, GenericRecord, { kind: "x" }, { offset: 1, limit: 1 });
    expect(page).toHaveLength(1);
    expect(["a", "c"]).toContain(page[0]!.id);
  });

  it("treats an undefined query value as no condition and null as an absent tag", () => {
    expect(matches({ state: "open" }, { state: undefined } as never)).toBe(true);
    expect(matches({ state: "open" }, { other: null } as never)).toBe(true);
    expect(matches({ state: "open" }, { state: null } as never)).toBe(false);
  });
});
