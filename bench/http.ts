import { Agent, request } from "undici";

/**
 * Keep-alive HTTP client for the load driver: one undici Agent whose per-origin pool has as many
 * connections as flows in flight, so no request waits for a socket and none opens a new one mid-run.
 */
export function createClient(connections: number) {
  const dispatcher = new Agent({ connections, pipelining: 1, keepAliveTimeout: 60_000 });

  /** One request over the pool: its status, its whole body as text, and a redirect's target. */
  async function exchange(
    method: "GET" | "POST",
    url: string,
    options: { headers?: Record<string, string>; body?: string },
  ): Promise<{ status: number; text: string; location?: string }> {
    const res = await request(url, { method, headers: options.headers, body: options.body, dispatcher });
    const location = res.headers.location;
    return {
      status: res.statusCode,
      text: await res.body.text(),
      ...(typeof location === "string" ? { location } : {}),
    };
  }

  async function send(
    method: "GET" | "POST",
    url: string,
    options: { headers?: Record<string, string>; body?: string; expect?: number } = {},
  ): Promise<{ status: number; text: string; location?: string }> {
    const res = await exchange(method, url, options);
    const expected = options.expect ?? 200;
    if (res.status !== expected) {
      throw new Error(`${method} ${new URL(url).pathname} → ${res.status} ${res.text.slice(0, 200)}`);
    }
    return res;
  }

  /** The wallet's `fetch` (FetchLike) over the same pool, without the Fetch API's Request/Response objects. */
  async function fetchLike(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ ok: boolean; status: number; text(): Promise<string> }> {
    const { status, text } = await exchange((init.method ?? "GET") as "GET" | "POST", url, init);
    return { ok: status >= 200 && status < 300, status, text: async () => text };
  }

  return {
    dispatcher,
    send,
    fetch: fetchLike,
    async json<T = any>(
      method: "GET" | "POST",
      url: string,
      options: {
        headers?: Record<string, string>;
        body?: unknown;
        form?: Record<string, string>;
        expect?: number;
      } = {},
    ): Promise<T> {
      const headers = { ...options.headers };
      let body: string | undefined;
      if (options.form) {
        headers["content-type"] = "application/x-www-form-urlencoded";
        body = new URLSearchParams(options.form).toString();
      } else if (options.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(options.body);
      }
      const res = await send(method, url, { headers, body, expect: options.expect });
      return (res.text ? JSON.parse(res.text) : undefined) as T;
    },
    close: () => dispatcher.close(),
  };
}

export type Client = ReturnType<typeof createClient>;
