import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "packages/*/src/**/*.test.ts",
            "apps/*/src/**/*.test.ts",
            // The apps' start scripts (plain Node, no build step).
            "apps/*/scripts/**/*.test.mjs",
            // The architecture rules of pnpm lint.
            "scripts/**/*.test.ts",
            // The SDK's own tests (no database): its client against loopback stand-ins, its tarball.
            "packages/sdk/test/**/*.test.ts",
            // pnpm bench's peers (the Credo peer runs as child processes, as in the bench).
            "bench/**/*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        // Core use-cases called directly on a migrated database (in-memory PGlite, or TEST_POSTGRES_URL),
        // without HTTP: packages/core/test/use-case-fixture.ts. Cheaper than the HTTP tests for the
        // rules a use-case decides; docs/testing.md.
        test: {
          name: "use-case",
          include: ["packages/*/test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "packages/sdk/test/**"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "http",
          include: ["apps/api/test/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
