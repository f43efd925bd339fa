#!/usr/bin/env node
// `pnpm openapi`: writes openapi.json from the code, then the SDK's types from openapi.json. With `--check`
// each step only compares, so the command fails when the document or the SDK's types are stale.
import { spawnSync } from "node:child_process";

const args = process.argv.slice(2);
for (const filter of ["@cred/api", "@cred/sdk"]) {
  const script = filter === "@cred/api" ? "openapi" : "generate";
  const result = spawnSync("pnpm", ["--silent", "--filter", filter, script, ...args], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
