import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedAddress } from "../shared/network-policy";

export type PostOutcome =
  | { kind: "response"; status: number }
  | { kind: "error"; error: string }
  | { kind: "aborted" };

const MAX_BODY_BYTES = 64 * 1024;

/** A resolver that only ever answers with the addresses the URL policy checked (no second lookup). */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) {
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
      return;
    }
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  }) as LookupFunction;
}

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

/**
 * POSTs `body` to `url`, connecting only to `addresses` (DNS-rebinding safe), with a hard timeout,
 * no redirects followed, no connection reuse and no cookies. The response body is read (bounded) and
 * dropped. Resolves with the status or a short, secret-free error; `signal` abandons the attempt.
 */
export function postWebhook(
  url: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    if (options.signal?.aborted) return resolve({ kind: "aborted" });
    const client = url.protocol === "https:" ? https : http;
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        agent: false,
        lookup: addresses.length ? pinnedLookup(addresses) : undefined,
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "cred-platform-webhooks/1.0",
        },
      },
      (res) => {
        let received = 0;
        res.on("data", (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_BODY_BYTES) res.destroy();
        });
        const done = () => finish({ kind: "response", status: res.statusCode ?? 0 });
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ kind: "error", error: `Timed out after ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish({ kind: "aborted" });
      req.destroy();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => finish({ kind: "error", error: describeError(error) }));
    req.end(body);
  });
}
