import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import { operationFor, REST_OPERATIONS } from "./operations";

const METHODS = ["get", "post", "put", "patch", "delete"];

function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) =>
      METHODS.filter((method) => item[method] !== undefined).map(
        (method) => `${method.toUpperCase()} ${path}`,
      ),
    )
    .sort();
}

describe("REST adapter operations", () => {
  const served = REST_OPERATIONS.map((op) => `${op.method} ${op.path}`).sort();

  it("serves exactly the operations of the committed openapi.json (path and method)", () => {
    const committed = JSON.parse(readFileSync(new URL("../../../../openapi.json", import.meta.url), "utf8"));
    expect(served).toEqual(operationsOf(committed));
    expect(new Set(served).size).toBe(served.length);
  });

  it("serves exactly the operations of the document it publishes", () => {
    expect(served).toEqual(operationsOf(buildOpenApiDocument() as never));
  });

  it("dispatches a concrete path to its operation with the path parameters as sent", () => {
    const found = operationFor("POST", "/management/issuers/iss_1%2F2/rotate-signing-key/");
    expect(found?.operation.meta.openapi?.operationId).toBe("Issuers_RotateSigningKey");
    expect(found?.pathInput).toEqual({ issuerId: "iss_1%2F2" });
    expect(operationFor("PUT", "/management/issuers/iss_1/rotate-signing-key")).toBeUndefined();
  });
});
