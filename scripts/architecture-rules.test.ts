// `pnpm lint` runs dependency-cruiser with .dependency-cruiser.cjs; these tests show that it fails on what
// the rules forbid, on small trees laid out like the repository, and passes on a clean one.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const depcruise = path.join(root, "node_modules/.bin/depcruise");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function cruise(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arch-rules-"));
  dirs.push(dir);
  fs.copyFileSync(path.join(root, "tsconfig.base.json"), path.join(dir, "tsconfig.base.json"));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const result = spawnSync(
    depcruise,
    ["apps", "packages", "--config", path.join(root, ".dependency-cruiser.cjs"), "--output-type", "err"],
    { cwd: dir, encoding: "utf8" },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const clean = {
  "packages/oid4vc/src/jose/sign.ts": "export const sign = 1;\n",
  "packages/oid4vc/src/vp/verify.ts": 'import { sign } from "../jose/sign";\nexport const verify = sign;\n',
  "apps/api/src/main.ts":
    'import { verify } from "../../../packages/oid4vc/src/vp/verify";\nexport default verify;\n',
};

describe("architecture rules (pnpm lint)", () => {
  it("pass on a tree that follows them", () => {
    const { status, output } = cruise(clean);
    expect(output).toContain("no dependency violations");
    expect(status).toBe(0);
  });

  it("fail on a cycle", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/a/a.ts": 'import { b } from "../b/b";\nexport const a = () => b;\n',
      "packages/core/src/b/b.ts": 'import { a } from "../a/a";\nexport const b = () => a;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("no-circular");
  });

  it("fail on a wrong-way import between protocol layers (JOSE importing VP)", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/oid4vc/src/jose/uses-vp.ts":
        'import { verify } from "../vp/verify";\nexport const x = verify;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("oid4vc-jose-layer");
  });

  it("fail on a package importing an app", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/x/x.ts":
        'import main from "../../../../apps/api/src/main";\nexport const x = main;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("packages-never-import-apps");
  });
});
