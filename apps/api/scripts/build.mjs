// Bundles the server (src/main.ts → serve.ts) and the separate webhook worker (src/worker-main.ts →
// worker-serve.ts), with the workspace
// packages they import, into dist/, so they run on plain Node with no TypeScript loader: tsx's module hooks
// run in a thread of their own for the life of the process, and the server's idle RSS was ~80 MB higher
// with them (docs/adr/0008-server-process-memory.md). Packages from the registry stay external (loaded from node_modules, by
// absolute path); `import.meta.url` keeps meaning the source file's location, since several modules find
// files (migrations, the repository root) relative to themselves. Takes well under a second.
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const app = path.resolve(here, "..");

/**
 * Modules an entry point imports dynamically (src/main.ts): each is a file of its own, since a bundled one
 * would have its registry imports hoisted to the top of the entry's file: the OpenTelemetry SDK
 * (start-tracing) would load even with tracing off, and the server before tracing had started.
 */
const LATER = [
  path.resolve(app, "src/serve.ts"),
  path.resolve(app, "src/worker-serve.ts"),
  path.resolve(app, "src/tracing/start-tracing.ts"),
  // The PKCS#11 binding is an optional native addon: loaded only when PKCS11_MODULE names a token.
  path.resolve(app, "src/key-custody/pkcs11-key-provider.ts"),
];

const sourceLocation = {
  name: "source-location",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.kind !== "dynamic-import" || args.pluginData === "resolving") return undefined;
      const resolved = await b.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: "resolving",
      });
      if (!LATER.includes(resolved.path)) return undefined;
      return { path: `./${path.basename(resolved.path, ".ts")}.mjs`, external: true };
    });
    // A registry package is loaded from where the importing workspace package would find it (pnpm gives
    // each package only its own dependencies), so it is resolved here and imported by absolute path;
    // by its name when apps/api finds that same file under that name (its own dependencies, and the
    // shared ones at the same version). (OpenTelemetry's ESM loader hook, which recognised a package only
    // by name, is no longer used: ADR 0022's amendment; the names keep stack traces readable.)
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith("@cred/") || args.pluginData === "resolving") return undefined;
      const resolve = (resolveDir) =>
        b.resolve(args.path, { resolveDir, kind: args.kind, pluginData: "resolving" });
      const resolved = await resolve(args.resolveDir);
      if (resolved.errors.length) return { errors: resolved.errors };
      const fromApp = await resolve(app);
      if (!fromApp.errors.length && fromApp.path === resolved.path)
        return { path: args.path, external: true };
      return { path: resolved.path, external: true };
    });
    b.onLoad({ filter: /\.(ts|mts)$/ }, async (args) => {
      const source = await fs.readFile(args.path, "utf8");
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
};

const ENTRIES = ["src/main.ts", "src/worker-main.ts"].map((e) => path.resolve(app, e));
const named = (file) => [path.basename(file).replace(/\.ts$/, ""), file];
const outdir = path.join(app, "dist");

const result = await build({
  entryPoints: Object.fromEntries([...ENTRIES, ...LATER].map(named)),
  outdir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  plugins: [sourceLocation],
  logLevel: "warning",
  write: false,
});
// Each file is replaced whole (write, then rename), so a process starting meanwhile never reads half a file.
await fs.mkdir(outdir, { recursive: true });
for (const file of result.outputFiles) {
  const temporary = `${file.path}.${process.pid}.tmp`;
  await fs.writeFile(temporary, file.contents);
  await fs.rename(temporary, file.path);
}
