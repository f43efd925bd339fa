import type { NextConfig } from "next";

// No rewrites: /trpc/* is proxied by a route handler (src/app/trpc/[...path]/route.ts) so that
// API_ORIGIN is read when the server starts rather than baked in at build time.
const config: NextConfig = {
  transpilePackages: ["@cred/contracts", "@cred/core"],
  poweredByHeader: false,
  // `pnpm typecheck` (tsc) checks the console; skipping it here halves `next build` on a fresh start.
  typescript: { ignoreBuildErrors: true },
};

export default config;
