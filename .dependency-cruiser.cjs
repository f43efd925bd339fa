// Architecture rules, checked by `pnpm lint` (docs/architecture.md explains them).
const oid4vcLayer = (name, allowed) => ({
  name: `oid4vc-${name}-layer`,
  comment: `packages/oid4vc/src/${name} may import only ${allowed.join(", ") || "nothing else in the package"} (JOSE → X.509 → status list, trusted lists → SD-JWT VC → VCI, VP)`,
  severity: "error",
  // Tests may check one layer against another (e.g. VCI's encryption against VP's).
  from: { path: `^packages/oid4vc/src/${name}/`, pathNot: "\\.test\\.ts$" },
  to: {
    path: "^packages/oid4vc/src/([^/]+)/",
    pathNot: [`^packages/oid4vc/src/(${[name, ...allowed].join("|")})/`],
  },
});

// packages/core/src, low to high: a folder may import its own layer and those below (never above); with
// core-no-folder-cycles, folders of one layer depend on each other one way too.
const coreLayers = [
  ["shared"],
  ["rpc"],
  // Trusted lists (docs/api/trust-sources.md): verification policies and issuers trust through them.
  ["trust-sources"],
  [
    "organisations",
    "staff",
    "staff-members",
    "api-keys",
    "webhooks",
    "verification-policies",
    "dashboard",
    "activity",
    "audit",
  ],
  ["issuers"],
  ["credential-configurations"],
  // The wallet authorization server (PAR, authorize, token, access tokens, DPoP, nonces, client
  // authentication): below issuance, whose offers it redeems by its own statements and whose credential
  // endpoints look up access tokens through it (docs/adr/0020-authorization-server-slice.md).
  ["authorization-server"],
  ["issuance"],
  ["credentials"],
  ["verification"],
  ["verifier-certificates", "events", "master-key", "tenants"],
  // Relying parties an intermediary acts for: their registration certificates are verifier-certificates'.
  ["relying-parties"],
];
const coreLayerRules = coreLayers.map((layer, index) => {
  const allowed = coreLayers.slice(0, index + 1).flat();
  return {
    name: `core-layer-${layer[0]}`,
    comment: `packages/core/src/{${layer.join(",")}} may import only ${allowed.join(", ")} (see coreLayers)`,
    severity: "error",
    from: { path: `^packages/core/src/(${layer.join("|")})/` },
    to: { path: "^packages/core/src/[^/]+/", pathNot: `^packages/core/src/(${allowed.join("|")})/` },
  };
});

// packages/core's public entries: the files its package.json `exports` names, one per subpath. A wildcard
// ("./*") would make every file public again, so it fails here rather than widening core-public-entries.
const coreEntries = Object.entries(require("./packages/core/package.json").exports).map(([subpath, file]) => {
  if (typeof file !== "string" || `${subpath}${file}`.includes("*")) {
    throw new Error(
      `packages/core/package.json exports "${subpath}": name each public entry and its file (no "*", no conditions); see docs/architecture.md`,
    );
  }
  return { subpath, path: `^packages/core/${file.replace(/^\.\//, "").replaceAll(".", "\\.")}$` };
});
const coreTestingEntry = coreEntries.find((entry) => entry.subpath === "./testing")?.path;

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No module imports itself through others.",
      severity: "error",
      from: { path: "^(apps|packages)/" },
      to: { circular: true },
    },
    {
      name: "packages-never-import-apps",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^apps/" },
    },
    {
      name: "oid4vc-is-pure-protocol",
      comment: "The protocol package imports no database, RPC or HTTP framework and nothing of ours.",
      severity: "error",
      from: { path: "^packages/oid4vc/" },
      to: {
        path: [
          "^packages/(core|db)/",
          "node_modules/(@prisma|prisma|@trpc|trpc-to-openapi|fastify|@fastify|next|pg)/",
        ],
      },
    },
    {
      name: "core-imports-no-web-framework",
      severity: "error",
      from: { path: "^packages/core/" },
      to: { path: "node_modules/(fastify|@fastify|next|react)/" },
    },
    {
      name: "core-no-folder-cycles",
      comment:
        "Inside packages/core/src, folders (slices, shared/, rpc/, and src/ itself for index.ts and router.ts) depend on each other in one direction.",
      severity: "error",
      scope: "folder",
      from: { path: "^packages/core/src/" },
      to: { circular: true },
    },
    {
      name: "core-shared-imports-no-slice",
      comment: "packages/core/src/shared is the bottom layer: it imports nothing else of core.",
      severity: "error",
      from: { path: "^packages/core/src/shared/" },
      to: { path: "^packages/core/src/", pathNot: "^packages/core/src/shared/" },
    },
    {
      name: "core-slices-import-nothing-from-root",
      comment:
        "Files directly in packages/core/src (index.ts, router.ts) compose the slices; no slice imports them.",
      severity: "error",
      from: { path: "^packages/core/src/[^/]+/" },
      to: { path: "^packages/core/src/[^/]+\\.ts$" },
    },
    {
      name: "core-slice-entry-points",
      comment:
        "From outside a slice of packages/core/src, only its entry point (index.ts); shared/ and rpc/ are layers imported file by file.",
      severity: "error",
      from: { path: "^packages/core/src/([^/]+)/" },
      to: {
        path: "^packages/core/src/[^/]+/",
        pathNot: [
          "^packages/core/src/$1/",
          "^packages/core/src/(shared|rpc)/",
          "^packages/core/src/[^/]+/index\\.ts$",
        ],
      },
    },
    {
      name: "contracts-only-zod",
      comment:
        "packages/contracts is the wire contract the browser loads too: it imports zod, the ISO 3166-1 country registry (data and lookups, no translations) and itself, nothing else (no node:*, no protocol package, no core).",
      severity: "error",
      from: { path: "^packages/contracts/", pathNot: "\\.test\\.ts$" },
      to: {
        pathNot: [
          "^packages/contracts/",
          "(^|node_modules/)zod(/|$)",
          "(^|node_modules/)i18n-iso-countries/index\\.js$",
        ],
      },
    },
    {
      name: "console-client-no-server",
      comment:
        "apps/console imports the server packages (core, db, oid4vc) only as types (AppRouter); schemas, scopes and event names come from @cred/contracts.",
      severity: "error",
      from: { path: "^apps/console/" },
      to: { path: "^packages/(core|db|oid4vc)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "core-public-entries",
      comment: `Outside packages/core, only the entries packages/core/package.json exports (${coreEntries.map((entry) => `@cred/core${entry.subpath.slice(1)}`).join(", ")}): no deep import, by subpath or by relative path.`,
      severity: "error",
      from: { pathNot: "^packages/core/" },
      to: { path: "^packages/core/", pathNot: coreEntries.map((entry) => entry.path) },
    },
    {
      name: "core-testing-entry-only-in-tests",
      comment:
        "@cred/core/testing hands internals to the API's tests; production code uses @cred/core and @cred/core/wallet.",
      severity: "error",
      from: { pathNot: ["^packages/core/", "(^|/)test/", "\\.test\\.ts$"] },
      to: { path: coreTestingEntry ?? "^$" },
    },
    {
      name: "workspace-imports-resolve",
      comment:
        "An import of a workspace package (@cred/*) resolves through that package's exports; a subpath it does not export (a deep @cred/core/... path) fails.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^@cred/" },
    },
    ...coreLayerRules,
    {
      name: "core-folder-has-a-layer",
      comment: "Every folder of packages/core/src has its place in coreLayers (add a new slice there).",
      severity: "error",
      from: {
        path: "^packages/core/src/[^/]+/",
        pathNot: `^packages/core/src/(${coreLayers.flat().join("|")})/`,
      },
      to: { path: "^packages/core/src/" },
    },
    oid4vcLayer("jose", []),
    oid4vcLayer("x509", ["jose"]),
    oid4vcLayer("status-list", ["jose", "x509"]),
    // ETSI trusted lists (TS 119 612 XML, TS 119 602 LoTE): signatures and certificates only, no protocol above.
    oid4vcLayer("trust-lists", ["jose", "x509"]),
    oid4vcLayer("sd-jwt-vc", ["jose", "x509", "status-list"]),
    oid4vcLayer("vci", ["jose", "x509", "sd-jwt-vc", "status-list"]),
    oid4vcLayer("vp", ["jose", "x509", "sd-jwt-vc", "status-list"]),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    // Resolve the workspace packages (@cred/*) through their package.json `exports` to their sources, so
    // that rules see imports between packages (without this they stay unresolved and unchecked).
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".d.ts"],
    },
    tsConfig: { fileName: "tsconfig.base.json" },
    exclude: { path: ["/generated/", "\\.next/", "node_modules"] },
  },
};
