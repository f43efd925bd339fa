import http from "node:http";
import https from "node:https";
import type { ResolvedAddress } from "../shared/network-policy";
import { pinnedLookup, type WebhookConnections } from "./webhook-connections";

export type PostOutcome =
  | { kind: "response"; status: number; retryAfter?: string }
  | { kind: "error"; error: string; timedOut?: true }
  | { kind: "aborted" };

const MAX_BODY_BYTES = 64 * 1024;

function describeError(error: unknown): string {
  const code = (error as { code?: string })?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: "Connection refused",
    ECONNRESET: "Connection reset",
    ETIMEDOUT: "Connection timed out",
    EHOSTUNREACH: "Host unreachable",
    ENETUNREACH: "Network unreachable",
    EPIPE: "Connection closed",
    UND_ERR_SOCKET: "Socket error",
  };
  if (code && known[code]) return `${known[code]} (${code})`;
  if (code?.startsWith("ERR_TLS") || code?.includes("CERT")) return `TLS error (${code})`;
  return code ? `Request failed (${code})` : "Request failed";
}

/** A kept-alive connection the server closed just as we wrote on it: nothing was answered. */
const STALE_CONNECTION = new Set(["ECONNRESET", "EPIPE"]);

/**
 * POSTs `body` to `url`, connecting only to `addresses` (DNS-rebinding safe), with a hard timeout,
 * no redirects followed and no cookies. Connections are kept alive per origin and address set
 * (`WebhookConnections`); when a reused one turns out closed before any answer, the request is sent
 * once more on a new connection. The response body is read (bounded) and dropped. Resolves with the
 * status or a short, secret-free error; `signal` abandons the attempt.
 */
export function postWebhook(
  url: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; connections: WebhookConnections; signal?: AbortSignal },
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    if (options.signal?.aborted) return resolve({ kind: "aborted" });
    const client = url.protocol === "https:" ? https : http;
    let settled = false;
    let req: http.ClientRequest;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const send = (agent: http.Agent | false) => {
      let answered = false;
      req = client.request(
        {
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ""),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: "POST",
          agent,
          lookup: addresses.length ? pinnedLookup(addresses) : undefined,
          headers: {
            ...headers,
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body)),
            "user-agent": "cred-platform-webhooks/1.0",
          },
        },
        (res) => {
          answered = true;
          let received = 0;
          res.on("data", (chunk: Buffer) => {
            received += chunk.length;
            if (received > MAX_BODY_BYTES) res.destroy();
          });
          const retryAfter = res.headers["retry-after"];
          const done = () =>
            finish({ kind: "response", status: res.statusCode ?? 0, ...(retryAfter ? { retryAfter } : {}) });
          res.on("end", done);
          res.on("close", done);
          res.on("error", done);
        },
      );
      req.on("error", (error) => {
        const code = (error as { code?: string }).code ?? "";
        if (!settled && agent && req.reusedSocket && !answered && STALE_CONNECTION.has(code)) send(false);
        else finish({ kind: "error", error: describeError(error) });
      });
      req.end(body);
    };
    const timer = setTimeout(() => {
      finish({ kind: "error", error: `Timed out after ${options.timeoutMs} ms`, timedOut: true });
      req.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish({ kind: "aborted" });
      req.destroy();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    send(options.connections.agentFor(url, addresses));
  });
}
