import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

describe("pnpm pack", () => {
  it("builds a tarball with compiled JS and declarations whose exports load in plain Node", () => {
    const destination = fs.mkdtempSync(path.join(os.tmpdir(), "cred-sdk-pack-"));
    scratch.push(destination);
    execFileSync("pnpm", ["pack", "--pack-destination", destination], { cwd: packageDir, stdio: "pipe" });
    const tarball = fs.readdirSync(destination).find((name) => name.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    const files = execFileSync("tar", ["tzf", path.join(destination, tarball!)], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining([
        "package/package.json",
        "package/README.md",
        "package/dist/index.js",
        "package/dist/index.d.ts",
        "package/dist/generated/openapi.d.ts",
      ]),
    );
    expect(files.filter((f) => f.includes("/src/") || f.endsWith(".test.ts"))).toEqual([]);

    // Unpacked beside the package's own node_modules, so its dependencies resolve as after an install.
    const unpacked = fs.mkdtempSync(path.join(packageDir, "node_modules", ".pack-check-"));
    scratch.push(unpacked);
    execFileSync("tar", ["xzf", path.join(destination, tarball!), "-C", unpacked]);
    const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, "package/package.json"), "utf8"));
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
    expect(manifest.dependencies).not.toHaveProperty("@cred/contracts");
    const loaded = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const sdk = await import(${JSON.stringify(path.join(unpacked, "package/dist/index.js"))});` +
          "console.log(JSON.stringify([typeof sdk.createCredClient, typeof sdk.verifyWebhook, sdk.API_VERSION]));",
      ],
      { encoding: "utf8" },
    );
    expect(JSON.parse(loaded)).toEqual(["function", "function", "2026-08-30"]);
  }, 120_000);
});
