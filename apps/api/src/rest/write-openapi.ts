// `pnpm openapi` writes the committed openapi.json; `pnpm openapi --check` fails when it is stale.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../env";
import { buildOpenApiDocument } from "./openapi";

const file = path.join(REPO_ROOT, "openapi.json");
const next = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
if (process.argv.includes("--check")) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (current !== next) {
    console.error("openapi.json is out of date: run `pnpm openapi` and commit the result.");
    process.exit(1);
  }
  console.log("openapi.json matches the code.");
} else {
  fs.writeFileSync(file, next);
  console.log(`Wrote ${path.relative(process.cwd(), file)}`);
}
