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

/** `links`: symlinks to create, as pnpm links workspace packages (`node_modules/@cred/core` → `packages/core`). */
function cruise(files: Record<string, string>, links: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arch-rules-"));
  dirs.push(dir);
  fs.copyFileSync(path.join(root, "tsconfig.base.json"), path.join(dir, "tsconfig.base.json"));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  for (const [link, target] of Object.entries(links)) {
    fs.mkdirSync(path.dirname(path.join(dir, link)), { recursive: true });
    fs.symlinkSync(
      path.relative(path.dirname(path.join(dir, link)), path.join(dir, target)),
      path.join(dir, link),
    );
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

  it("fail on a shared/ file of core importing a slice", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/issuers/issuer.ts": "export const issuer = 1;\n",
      "packages/core/src/shared/uses-issuer.ts":
        'import { issuer } from "../issuers/issuer";\nexport const x = issuer;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("core-shared-imports-no-slice");
  });

  it("fail on core slices that depend on each other both ways, though no module cycle", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/staff/one.ts": 'import { two } from "../organisations";\nexport const one = two;\n',
      "packages/core/src/staff/three.ts": "export const three = 3;\n",
      "packages/core/src/staff/index.ts": 'export { three } from "./three";\n',
      "packages/core/src/organisations/two.ts": "export const two = 2;\n",
      "packages/core/src/organisations/index.ts": 'export { two } from "./two";\n',
      "packages/core/src/organisations/four.ts":
        'import { three } from "../staff";\nexport const four = three;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("core-no-folder-cycles");
    expect(output).not.toContain("no-circular");
  });

  it("fail on a core slice importing a slice of a higher layer (issuers importing verification)", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/verification/index.ts": "export const verify = 1;\n",
      "packages/core/src/issuers/issuer.ts":
        'import { verify } from "../verification";\nexport const issuer = verify;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("core-layer-issuers");
  });

  it("fail on a core folder that has no place in the layers", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/shared/errors.ts": "export const errors = 1;\n",
      "packages/core/src/newcomer/x.ts":
        'import { errors } from "../shared/errors";\nexport const x = errors;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("core-folder-has-a-layer");
  });

  it("fail on a core slice importing a file at the root of core/src", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/router.ts":
        'import { issuer } from "./issuers/issuer";\nexport const router = issuer;\n',
      "packages/core/src/context.ts": "export const context = 1;\n",
      "packages/core/src/issuers/issuer.ts":
        'import { context } from "../context";\nexport const issuer = context;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("core-slices-import-nothing-from-root");
  });

  it("fail on a core slice importing another slice's file instead of its index.ts", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/issuers/issuer.ts": "export const issuer = 1;\n",
      "packages/core/src/issuers/index.ts": 'export { issuer } from "./issuer";\n',
      "packages/core/src/issuance/offer.ts":
        'import { issuer } from "../issuers/issuer";\nexport const offer = issuer;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("core-slice-entry-points");
  });

  it("pass on core slices that depend one way through entry points, on shared/ and from the root router", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/shared/errors.ts": "export const errors = 1;\n",
      "packages/core/src/issuers/issuer.ts":
        'import { errors } from "../shared/errors";\nexport const issuer = errors;\n',
      "packages/core/src/issuers/index.ts": 'export { issuer } from "./issuer";\n',
      "packages/core/src/issuance/offer.ts":
        'import { issuer } from "../issuers";\nexport const offer = issuer;\n',
      "packages/core/src/router.ts":
        'import { offer } from "./issuance/offer";\nexport const router = offer;\n',
    });
    expect(output).toContain("no dependency violations");
    expect(status).toBe(0);
  });

  it("fail on the contracts package importing anything but zod and itself (node:crypto, core)", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/shared/pem.ts": "export const parse = 1;\n",
      "packages/contracts/src/issuers.ts":
        'import { X509Certificate } from "node:crypto";\nimport { parse } from "../../core/src/shared/pem";\nexport const issuers = [X509Certificate, parse];\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("contracts-only-zod");
    expect(output).toMatch(/contracts-only-zod: packages\/contracts\/src\/issuers.ts → (node:)?crypto/);
    expect(output).toContain("packages/core/src/shared/pem.ts");
  });

  it("fail on the console importing core's code rather than its types", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/index.ts":
        "export const appRouter = 1;\nexport type AppRouter = typeof appRouter;\n",
      "apps/console/src/lib/trpc.ts":
        'import { appRouter } from "../../../../packages/core/src/index";\nexport const router = appRouter;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("console-client-no-server");
  });

  it("pass on the console importing core's types and the contracts, and the contracts importing themselves", () => {
    const { status, output } = cruise({
      ...clean,
      "packages/core/src/index.ts":
        "export const appRouter = 1;\nexport type AppRouter = typeof appRouter;\n",
      "packages/contracts/src/scopes.ts": "export const SCOPES = [];\n",
      "packages/contracts/src/staff.ts": 'import { SCOPES } from "./scopes";\nexport const staff = SCOPES;\n',
      "apps/console/src/lib/trpc.ts":
        'import type { AppRouter } from "../../../../packages/core/src/index";\nimport { staff } from "../../../../packages/contracts/src/staff";\nexport const router: AppRouter | typeof staff = staff;\n',
    });
    expect(output).toContain("no dependency violations");
    expect(status).toBe(0);
  });

  // packages/core as pnpm links it for the apps: `@cred/core` resolves through its package.json exports.
  const coreAsLinked = (exports: Record<string, string>) => ({
    files: {
      ...clean,
      "packages/core/package.json": JSON.stringify({ name: "@cred/core", type: "module", exports }),
      "packages/core/src/index.ts": "export const appRouter = 1;\n",
      "packages/core/src/wallet.ts": 'export { issuerUrls } from "./issuers";\n',
      "packages/core/src/testing.ts": 'export { outboundGet } from "./shared/outbound-fetch";\n',
      "packages/core/src/issuers/index.ts": 'export { issuerUrls } from "./issuer-urls";\n',
      "packages/core/src/issuers/issuer-urls.ts": "export const issuerUrls = 1;\n",
      "packages/core/src/shared/outbound-fetch.ts": "export const outboundGet = 1;\n",
    },
    links: { "node_modules/@cred/core": "packages/core" },
  });
  const publicEntries = {
    ".": "./src/index.ts",
    "./wallet": "./src/wallet.ts",
    "./testing": "./src/testing.ts",
  };

  it("fail on an app importing a file of core that is not a public entry, were every file exported again", () => {
    const core = coreAsLinked({ ...publicEntries, "./*": "./src/*.ts" });
    const { status, output } = cruise(
      {
        ...core.files,
        "apps/api/src/wallet/par.ts":
          'import { issuerUrls } from "@cred/core/issuers/index";\nexport const par = issuerUrls;\n',
        "apps/api/src/wallet/token.ts":
          'import { issuerUrls } from "../../../../packages/core/src/issuers/issuer-urls";\nexport const token = issuerUrls;\n',
      },
      core.links,
    );
    expect(status).not.toBe(0);
    expect(output).toContain(
      "core-public-entries: apps/api/src/wallet/par.ts → packages/core/src/issuers/index.ts",
    );
    expect(output).toContain(
      "core-public-entries: apps/api/src/wallet/token.ts → packages/core/src/issuers/issuer-urls.ts",
    );
  });

  it("fail on an app importing a subpath of @cred/core that its package.json does not export", () => {
    const core = coreAsLinked(publicEntries);
    const { status, output } = cruise(
      {
        ...core.files,
        "apps/api/src/wallet/par.ts":
          'import { issuerUrls } from "@cred/core/issuers/index";\nexport const par = issuerUrls;\n',
      },
      core.links,
    );
    expect(status).not.toBe(0);
    expect(output).toContain(
      "workspace-imports-resolve: apps/api/src/wallet/par.ts → @cred/core/issuers/index",
    );
  });

  it("fail on production code importing @cred/core/testing", () => {
    const core = coreAsLinked(publicEntries);
    const { status, output } = cruise(
      {
        ...core.files,
        "apps/api/src/wallet/jwks.ts":
          'import { outboundGet } from "@cred/core/testing";\nexport const jwks = outboundGet;\n',
      },
      core.links,
    );
    expect(status).not.toBe(0);
    expect(output).toContain(
      "core-testing-entry-only-in-tests: apps/api/src/wallet/jwks.ts → packages/core/src/testing.ts",
    );
  });

  it("pass on apps importing core's public entries, and tests importing @cred/core/testing", () => {
    const core = coreAsLinked(publicEntries);
    const { status, output } = cruise(
      {
        ...core.files,
        "apps/api/src/server.ts":
          'import { appRouter } from "@cred/core";\nexport const server = appRouter;\n',
        "apps/api/src/wallet/par.ts":
          'import { issuerUrls } from "@cred/core/wallet";\nexport const par = issuerUrls;\n',
        "apps/api/test/verification.test.ts":
          'import { outboundGet } from "@cred/core/testing";\nexport const test = outboundGet;\n',
        "apps/api/src/env.test.ts":
          'import { outboundGet } from "@cred/core/testing";\nexport const test = outboundGet;\n',
      },
      core.links,
    );
    expect(output).toContain("no dependency violations");
    expect(status).toBe(0);
  });
});
