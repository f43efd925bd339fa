import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SEALED_COLUMNS } from "./reseal-secrets";

describe("SEALED_COLUMNS", () => {
  it("names every *Cipher column of the schema, so a rotation reseals it", () => {
    const schema = fs.readFileSync(path.resolve(__dirname, "../../../../prisma/schema.prisma"), "utf8");
    const cipherColumns: string[] = [];
    let model = "";
    for (const line of schema.split("\n")) {
      model = /^model (\w+)/.exec(line)?.[1] ?? model;
      const field = /^\s+(\w+Cipher)\s/.exec(line)?.[1];
      if (field) cipherColumns.push(`${model}.${field}`);
    }
    expect(cipherColumns.length).toBeGreaterThan(5);
    const listed = SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`);
    expect(listed).toEqual(expect.arrayContaining(cipherColumns));
  });
});
