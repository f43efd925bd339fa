// A relying party's tiny backend for the Digital Credentials API example (no dependencies, Node 20+).
// It holds the platform API key, serves the page and the browser SDK, and relays three calls:
//   POST /verification/start               → Verifications_Create (with dcApi when the browser has the API)
//   POST /verification/:id/dc-api-response → VerificationSessions_SubmitDcApiResponse, then Verifications_Get
//   GET  /verification/:id                 → Verifications_Get (the fallback page polls it)
// Run: pnpm --filter @cred/web-verify build && PLATFORM_URL=http://localhost:3000 API_KEY=… POLICY=over-18 node examples/dc-api/server.mjs
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const sdkFile = path.join(here, "../../packages/web-verify/dist/index.js");

/** Starts the example; resolves `{ url, close }` once it listens. */
export async function startExampleServer({
  platformUrl = process.env.PLATFORM_URL ?? "http://localhost:3000",
  apiKey = process.env.API_KEY,
  policy = process.env.POLICY ?? "over-18",
  origin = process.env.EXAMPLE_ORIGIN, // the page's origin; default: the Host the browser used
  port = Number(process.env.PORT ?? 8080),
  host = process.env.HOST ?? "127.0.0.1",
} = {}) {
  if (!apiKey)
    throw new Error("set API_KEY to a platform API key with verification.execute and verification.read");
  const platform = async (method, pathname, body) => {
    const response = await fetch(new URL(pathname, platformUrl), {
      method,
      headers: {
        authorization: `ApiKey ${apiKey}`,
        accept: "application/json",
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json() };
  };

  const server = createServer(async (req, res) => {
    const send = (status, body, type = "application/json") => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(type === "application/json" ? JSON.stringify(body) : body);
    };
    try {
      const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
      const pageOrigin = origin ?? `http://${req.headers.host}`;
      if (req.method === "GET" && url.pathname === "/")
        return send(200, await readFile(path.join(here, "index.html"), "utf8"), "text/html; charset=utf-8");
      if (req.method === "GET" && url.pathname === "/web-verify.js")
        return send(200, await readFile(sdkFile, "utf8"), "text/javascript; charset=utf-8");

      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};

      if (req.method === "POST" && url.pathname === "/verification/start") {
        // This example lets the page pick the policy and signing (to show each variant); a real
        // backend decides both itself.
        const dcApi = input.dcApi
          ? { origins: [pageOrigin], signed: url.searchParams.get("signed") !== "false" }
          : undefined;
        const created = await platform("POST", "/v1.0/verifications", {
          policy: url.searchParams.get("policy") ?? policy,
          ...(dcApi ? { dcApi } : {}),
        });
        return send(created.status, created.body);
      }
      const answer = url.pathname.match(/^\/verification\/([\w-]+)\/dc-api-response$/);
      if (req.method === "POST" && answer) {
        const id = answer[1];
        const submitted = await platform("POST", `/v1.0/verification-sessions/${id}/dc-api-responses`, {
          protocol: input.protocol,
          data: input.data,
        });
        if (submitted.status !== 200) return send(submitted.status, submitted.body);
        // Act on what the platform says, read server-side.
        const read = await platform("GET", `/v1.0/verifications/${id}`);
        return send(read.status, read.body);
      }
      const get = url.pathname.match(/^\/verification\/([\w-]+)$/);
      if (req.method === "GET" && get) {
        const read = await platform("GET", `/v1.0/verifications/${get[1]}`);
        return send(read.status, read.body);
      }
      return send(404, { error: "not found" });
    } catch (error) {
      return send(500, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    url: `http://${host}:${typeof address === "object" && address ? address.port : port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { url } = await startExampleServer();
  console.log(`Digital Credentials API example on ${url}`);
}
