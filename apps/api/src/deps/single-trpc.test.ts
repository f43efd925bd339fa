import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const resolveFrom = (dir: string, id: string) => createRequire(path.join(dir, "package.json")).resolve(id);

describe("one copy of @trpc/server", () => {
  // Core throws TRPCError and the API's error handling checks `instanceof`: two copies (a peer dependency
  // resolved differently, as @opentelemetry/api once did through next) turn every refusal into a 500.
  it("apps/api and packages/core resolve the same @trpc/server", () => {
    const api = resolveFrom(path.resolve(here, "../.."), "@trpc/server");
    const core = resolveFrom(path.resolve(here, "../../../../packages/core"), "@trpc/server");
    expect(core).toBe(api);
  });
});
