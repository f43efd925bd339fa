import fs from "node:fs";
import path from "node:path";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { declareRequestFields, REQUEST_FIELDS } from "./request-fields";

const SRC = path.resolve(__dirname, "..");

/** Every `request.<field> = …` (and `reply.request.<field> = …`) in the server's sources, by field. */
function fieldsSetInSources(): Map<string, string[]> {
  const assignment = /\brequest\.([A-Za-z_$][\w$]*)\s*=(?!=)/g;
  const found = new Map<string, string[]>();
  for (const entry of fs.readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const match of fs.readFileSync(file, "utf8").matchAll(assignment)) {
      found.set(match[1]!, [...(found.get(match[1]!) ?? []), path.relative(SRC, file)]);
    }
  }
  return found;
}

describe("request fields", () => {
  it("every field the sources set on a request is declared", () => {
    const set = fieldsSetInSources();
    // The scan does find the assignments (a broken pattern would pass vacuously).
    expect([...set.keys()]).toEqual(expect.arrayContaining(["traceScope", "metricsOperation"]));
    const undeclared = [...set].filter(([field]) => !(REQUEST_FIELDS as readonly string[]).includes(field));
    expect(undeclared).toEqual([]);
  });

  it("a request is built with every field, so setting them adds no property", async () => {
    const app = Fastify();
    declareRequestFields(app);
    const keys: string[][] = [];
    app.addHook("onRequest", async (request) => {
      keys.push(Object.keys(request));
      request.clientRequestId = "client";
      request.traceScope = undefined;
    });
    app.get("/", async (request) => {
      request.metricsOperation = "Things_List";
      request.oauthError = "invalid_request";
      keys.push(Object.keys(request));
      return {};
    });
    await app.inject({ method: "GET", url: "/" });
    await app.close();
    expect(keys[0]).toEqual(expect.arrayContaining([...REQUEST_FIELDS]));
    expect(keys[1]).toEqual(keys[0]);
  });
});
