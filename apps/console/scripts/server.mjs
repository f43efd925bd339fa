#!/usr/bin/env node
// The console's production server: Next.js's request handler behind a plain Node server that appends
// each connection's address to X-Forwarded-For, as a proxy does, before Next sees the request. The
// /trpc proxy passes the header on, so the API (trusting loopback by default, TRUST_PROXY) throttles
// sign-ins per browser address rather than per console. `next start` cannot: it keeps whatever
// X-Forwarded-For the client sent. Run by serve.mjs after the build, with NODE_ENV=production.
// Env: CONSOLE_PORT (3001), CONSOLE_HOST (127.0.0.1), API_ORIGIN (read by the /trpc route).
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { forwardedFor } from "./next-env.mjs";

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.CONSOLE_PORT || "3001");
const hostname = process.env.CONSOLE_HOST || "127.0.0.1";

const app = next({ dev: false, dir: consoleDir, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  const value = forwardedFor(req.headers["x-forwarded-for"], req.socket.remoteAddress);
  if (value) req.headers["x-forwarded-for"] = value;
  handle(req, res);
});
server.on("error", (error) => {
  process.stderr.write(`Console: cannot listen on ${hostname}:${port}: ${error.message}\n`);
  process.exit(1);
});
server.listen(port, hostname, () => {
  process.stdout.write(`Console: serving http://${hostname}:${port} (production build)\n`);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
