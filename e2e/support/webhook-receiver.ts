import http from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback HTTP endpoint that records what the webhook worker posts to it. */
export async function startWebhookReceiver() {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/console-e2e`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
