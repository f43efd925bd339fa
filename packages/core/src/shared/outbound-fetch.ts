import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import type { CoreConfig } from "./context";
import { assertPublicHttpsUrl, type ResolvedAddress } from "./network-policy";
import type { OutboundTracer } from "./outbound-trace";

/** Why an outbound fetch (external JWKS, remote status list) failed; becomes a rejection reason. */
export class OutboundFetchError extends Error {
  override readonly name = "OutboundFetchError";
}

export interface OutboundFetchOptions {
  accept: string;
  maxBytes: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** The span this request gets, and its `traceparent` (shared/outbound-trace.ts); none without tracing. */
  trace?: OutboundTracer;
}

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction | undefined {
  if (addresses.length === 0) return undefined;
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}

function getOnce(
  url: URL,
  addresses: ResolvedAddress[],
  options: OutboundFetchOptions,
  deadline: number,
  traceHeaders: Record<string, string> = {},
): Promise<{ status: number; location?: string; body: Buffer; contentType?: string }> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === "https:" ? https : http;
    const lookup = pinnedLookup(addresses);
    const request = lib.get(
      url,
      {
        // Token Status List servers SHOULD gzip; maxBytes bounds the body before and after decoding.
        headers: {
          ...traceHeaders,
          accept: options.accept,
          "accept-encoding": "gzip",
          "user-agent": "cred-verifier/1",
        },
        timeout: Math.max(1, deadline - Date.now()),
        ...(lookup ? { lookup } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.resume();
          resolve({ status, location: response.headers.location ?? "", body: Buffer.alloc(0) });
          return;
        }
        let body: Readable = response;
        // Declared, counted as sent and, for gzip, as decoded: past maxBytes either way the download ends.
        const tooLarge = () => {
          response.destroy();
          body.destroy();
          reject(new OutboundFetchError("the response is too large"));
        };
        const declared = Number(response.headers["content-length"] ?? "0");
        if (declared > options.maxBytes) return tooLarge();
        const encoding = (response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
        if (encoding !== "identity" && encoding !== "gzip") {
          response.destroy();
          reject(new OutboundFetchError(`the response has an unsupported content-encoding (${encoding})`));
          return;
        }
        if (encoding === "gzip") {
          // The bytes as sent count too: a stream of empty gzip members decodes to nothing.
          let sent = 0;
          response.on("data", (chunk: Buffer) => {
            sent += chunk.length;
            if (sent > options.maxBytes) tooLarge();
          });
          body = response.pipe(createGunzip());
          body.on("error", (e) => {
            response.destroy();
            reject(new OutboundFetchError(`the response does not decompress: ${e.message}`));
          });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        body.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) return tooLarge();
          chunks.push(chunk);
        });
        body.on("end", () =>
          resolve({
            status,
            body: Buffer.concat(chunks),
            contentType: response.headers["content-type"],
          }),
        );
        response.on("error", (e) => reject(new OutboundFetchError(e.message)));
      },
    );
    request.on("timeout", () => request.destroy(new OutboundFetchError("the request timed out")));
    // The socket timeout above is reset by every byte; the deadline also bounds a body that trickles.
    const overall = setTimeout(
      () => request.destroy(new OutboundFetchError("the request timed out")),
      Math.max(1, deadline - Date.now()),
    );
    request.on("close", () => clearTimeout(overall));
    request.on("error", (e) =>
      reject(
        e instanceof OutboundFetchError ? e : new OutboundFetchError(`the request failed: ${e.message}`),
      ),
    );
  });
}

/**
 * GET of a caller-configured URL (external issuers' JWKS, remote status lists) under the outbound URL
 * policy: https only (http to loopback in development mode), no private/loopback/metadata addresses
 * unless allow-listed (`webhookAllowedHosts`), checked on every redirect hop with the connection pinned
 * to the checked addresses; overall timeout, bounded redirects and response size.
 */
export async function outboundGet(
  config: Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">,
  target: string,
  options: OutboundFetchOptions,
): Promise<string> {
  return (await outboundGetBytes(config, target, options)).toString("utf8");
}

/** `outboundGet` returning the body's octets, for callers that hash them (integrity metadata). */
export async function outboundGetBytes(
  config: Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">,
  target: string,
  options: OutboundFetchOptions,
): Promise<Buffer> {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  let current = target;
  for (let hop = 0; hop <= (options.maxRedirects ?? 2); hop++) {
    let checked: Awaited<ReturnType<typeof assertPublicHttpsUrl>>;
    try {
      checked = await assertPublicHttpsUrl(current, {
        allowLoopbackHttp: config.developmentMode,
        allowedHosts: config.webhookAllowedHosts,
        lookupTimeoutMs: Math.max(1, deadline - Date.now()),
      });
    } catch (error) {
      throw new OutboundFetchError(`the URL is not allowed: ${(error as Error).message}`);
    }
    const { url, addresses } = checked;
    const response = options.trace
      ? await options.trace(
          "GET",
          url,
          (traceHeaders) => getOnce(url, addresses, options, deadline, traceHeaders),
          (answer) => answer.status,
        )
      : await getOnce(url, addresses, options, deadline);
    if (response.status >= 300 && response.status < 400) {
      if (!response.location) throw new OutboundFetchError(`the server answered ${response.status}`);
      current = new URL(response.location, checked.url).toString();
      continue;
    }
    // Any 2xx is a success (Token Status List §8.1: "MUST use an HTTP status code in the 2xx range").
    if (response.status < 200 || response.status >= 300) {
      throw new OutboundFetchError(`the server answered ${response.status}`);
    }
    return response.body;
  }
  throw new OutboundFetchError("too many redirects");
}
