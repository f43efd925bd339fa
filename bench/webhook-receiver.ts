// A local Standard Webhooks receiver for the `webhooks` workload: answers 204 at once and records, per
// event (deduplicated by webhook-id: delivery is at least once), how long after the event occurred it came.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type LatencySummary, Samples } from "./stats";

export interface WebhookReceipts {
  /** Distinct events received. */
  events: number;
  /** Deliveries of an event already received (retries, or a second dispatcher). */
  repeats: number;
  /** From the event's `timestamp` (when it occurred) to its arrival here. */
  latency: LatencySummary;
}

export async function startWebhookReceiver() {
  const seen = new Set<string>();
  let repeats = 0;
  const latencies = new Samples();
  let lastArrival = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      lastArrival = Date.now();
      res.writeHead(204).end();
      const id = String(req.headers["webhook-id"] ?? "");
      if (seen.has(id)) {
        repeats++;
        return;
      }
      seen.add(id);
      try {
        const occurred = Date.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")).timestamp);
        if (Number.isFinite(occurred)) latencies.add(lastArrival - occurred);
      } catch {
        // not JSON: counted, no latency
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    /** Waits until nothing has arrived for `quietMs` (at most `maxMs`), then reports. */
    async settle(quietMs: number, maxMs: number): Promise<WebhookReceipts> {
      const end = Date.now() + maxMs;
      while (Date.now() < end && Date.now() - lastArrival < quietMs) {
        await new Promise((r) => setTimeout(r, 100));
      }
      return { events: seen.size, repeats, latency: latencies.summary() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
