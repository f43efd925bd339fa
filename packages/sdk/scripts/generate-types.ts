// Writes src/generated/openapi.ts, the SDK's types, from the committed openapi.json (`pnpm openapi` runs it
// after writing that document; `pnpm openapi --check` fails when the committed types are stale).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const documentFile = path.resolve(packageDir, "../../openapi.json");
const typesFile = path.join(packageDir, "src/generated/openapi.ts");

/**
 * The document as the SDK's callers see it: `api-version` is a parameter the client adds to every
 * Management request itself (client.ts), so the types do not ask each call for it.
 */
function withoutApiVersionParameter(document: Record<string, any>): OpenAPI3 {
  const copy = structuredClone(document);
  for (const item of Object.values<Record<string, any>>(copy.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(item)) {
      if (!Array.isArray(operation?.parameters)) continue;
      operation.parameters = operation.parameters.filter(
        (parameter: { $ref?: string }) => parameter.$ref !== "#/components/parameters/ApiVersion",
      );
    }
  }
  delete copy.components?.parameters?.ApiVersion;
  return copy as OpenAPI3;
}

export async function generateTypes(document: Record<string, any>): Promise<string> {
  // A member with a default stays optional where the document does not require it (request bodies).
  const ast = await openapiTS(withoutApiVersionParameter(document), {
    silent: true,
    defaultNonNullable: false,
  });
  const header =
    "// Generated from openapi.json by packages/sdk/scripts/generate-types.ts (`pnpm openapi`): do not edit.\n\n";
  const version = `\n/** The Management plane's \`api-version\` this client is generated for (openapi.json's info.version). */\nexport const API_VERSION = ${JSON.stringify(document.info.version)};\n`;
  return header + astToString(ast) + version;
}

const document = JSON.parse(fs.readFileSync(documentFile, "utf8"));
const next = await generateTypes(document);
if (process.argv.includes("--check")) {
  const current = fs.existsSync(typesFile) ? fs.readFileSync(typesFile, "utf8") : "";
  if (current !== next) {
    console.error(
      "packages/sdk/src/generated/openapi.ts is out of date: run `pnpm openapi` and commit the result.",
    );
    process.exit(1);
  }
  console.log("The SDK's types match openapi.json.");
} else {
  fs.mkdirSync(path.dirname(typesFile), { recursive: true });
  fs.writeFileSync(typesFile, next);
  console.log(`Wrote ${path.relative(process.cwd(), typesFile)}`);
}
