// Answers the server gives before any route runs (Node's HTTP parser, Fastify's router, an unmet Expect,
// CONNECT, a missing Host, a request while closing) carry x-ms-request-id and the ErrorEnvelope like every
// other response (docs/api/errors.md, "Answers before the application"). Raw bytes over node:net, since
// fetch cannot send most of these requests.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";

let t: TestServer;
let port: number;
beforeAll(async () => {
  t = await startTestServer();
  port = Number(new URL(t.baseUrl).port);
});
afterAll(() => t?.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Parses the HTTP/1.1 responses in `text` (each with Content-Length, as all of these have). */
function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith("HTTP/1.1 ")) {
    const headEnd = rest.indexOf("\r\n\r\n");
    const [statusLine = "", ...lines] = rest.slice(0, headEnd).split("\r\n");
    const headers = Object.fromEntries(
      lines.map((line) => [
        line.slice(0, line.indexOf(":")).toLowerCase(),
        line.slice(line.indexOf(":") + 1).trim(),
      ]),
    );
    const length = Number(headers["content-length"] ?? 0);
    const bodyText = Buffer.from(rest.slice(headEnd + 4), "latin1")
      .subarray(0, length)
      .toString("utf8");
    responses.push({
      status: Number(statusLine.split(" ")[1]),
      headers,
      body: bodyText ? JSON.parse(bodyText) : undefined,
    });
    rest = rest.slice(headEnd + 4 + Buffer.byteLength(bodyText, "latin1"));
  }
  return responses;
}

/** Writes `request` on a fresh connection and reads until the server closes it. */
function exchange(request: string | Buffer, onSocket?: (socket: net.Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(request);
      onSocket?.(socket);
    });
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", (error) => (answer ? resolve(answer) : reject(error)));
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer; got: ${answer.slice(0, 200)}`)));
  });
}

async function oneResponse(request: string | Buffer): Promise<RawResponse> {
  const responses = parseResponses(await exchange(request));
  expect(responses).toHaveLength(1);
  return responses[0]!;
}

/** Asserts the status, the request id header and the envelope carrying the same id. */
function expectEnvelope(r: RawResponse, status: number, code: string) {
  expect([r.status, r.body?.error?.code]).toEqual([status, code]);
  expect(r.headers["x-ms-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.body).toEqual({
    error: { code, message: expect.any(String), requestId: r.headers["x-ms-request-id"] },
  });
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
}

const get = (target: string, extra = "") =>
  `GET ${target} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;

describe("Node's HTTP parser (clientError)", () => {
  it("431 HeadersTooLarge for headers over 16 KiB", async () => {
    expectEnvelope(
      await oneResponse(get("/healthz", `X-Big: ${"a".repeat(20_000)}\r\n`)),
      431,
      "HeadersTooLarge",
    );
  });

  it("431 HeadersTooLarge for a request line over 16 KiB (Node counts it with the headers)", async () => {
    const r = await oneResponse(get(`/v1.0/issuance-transactions/${"a".repeat(20_000)}`));
    expectEnvelope(r, 431, "HeadersTooLarge");
  });

  it("400 MalformedRequest for bytes that are not HTTP/1.1, a NUL in a header, Content-Length with chunked", async () => {
    for (const request of [
      "GARBAGE\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\u0000b\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: x\r\nx-ms-client-request-id: a\u0000b\r\n\r\n",
      "POST /v1.0/verifications HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]) {
      expectEnvelope(await oneResponse(request), 400, "MalformedRequest");
    }
  });

  it("logs no error when a client goes away in the middle of its body", async () => {
    const logged: unknown[] = [];
    const log = t.server.app.log as unknown as { error: (...args: unknown[]) => void };
    const original = log.error;
    log.error = (...args: unknown[]) => void logged.push(args);
    try {
      const socket = net.connect(port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      const handled = new Promise((resolve) =>
        t.server.app.server.once("request", (_req, res) => res.once("close", resolve)),
      );
      socket.write(
        "POST /management/organisations?api-version=2026-08-30 HTTP/1.1\r\nHost: x\r\n" +
          "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await handled;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(logged).toEqual([]);
    } finally {
      log.error = original;
    }
  });

  it("408 RequestTimeout when Node's request timeout passes", async () => {
    const serverSocket = new Promise<net.Socket>((resolve) =>
      t.server.app.server.once("connection", resolve),
    );
    const answer = await exchange("GET /healthz HTTP/1.1\r\nHost: x\r\n", async () => {
      // Node reports the timeout as this clientError (its check runs every 30 s by default).
      const timeout = Object.assign(new Error("Request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" });
      t.server.app.server.emit("clientError", timeout, await serverSocket);
    });
    const responses = parseResponses(answer);
    expect(responses).toHaveLength(1);
    expectEnvelope(responses[0]!, 408, "RequestTimeout");
  });
});

describe("Fastify's router (frameworkErrors)", () => {
  it("400 MalformedUrl for percent-encoding that is not UTF-8, on the REST planes and wallet endpoints", async () => {
    for (const target of [
      "/v1.0/issuance-transactions/%E0%A4%A",
      "/v1.0/issuance-transactions/a%ED%A0%80b",
      "/issuers/%E0%A4%A/token",
      "/management/issuers/%FF?api-version=2026-08-30",
    ]) {
      const r = await oneResponse(get(target));
      expectEnvelope(r, 400, "MalformedUrl");
    }
    // The Product plane's own headers are there too.
    const product = await oneResponse(get("/v1.0/issuance-transactions/%E0%A4%A"));
    expect(product.headers["x-request-id"]).toBe(product.headers["x-ms-request-id"]);
    expect(product.headers["x-correlation-id"]).toBeTruthy();
  });

  it("414 UriTooLong for a path parameter over 100 characters", async () => {
    expectEnvelope(await oneResponse(get(`/issuers/${"a".repeat(101)}/nonce`)), 414, "UriTooLong");
  });
});

describe("requests Node or Fastify would answer on their own", () => {
  it("400 MalformedRequest for an HTTP/1.1 request without Host; HTTP/1.0 needs none", async () => {
    const r = await oneResponse("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
    expectEnvelope(r, 400, "MalformedRequest");
    expect(r.body.error.message).toContain("Host");
    const old = await oneResponse("GET /healthz HTTP/1.0\r\n\r\n");
    expect(old.status).toBe(200);
  });

  it("417 ExpectationFailed for an expectation other than 100-continue", async () => {
    expectEnvelope(
      await oneResponse(get("/healthz", "Expect: something-else\r\n")),
      417,
      "ExpectationFailed",
    );
  });

  it("405 MethodNotAllowed for CONNECT (Node would close the connection without an answer)", async () => {
    expectEnvelope(
      await oneResponse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
      405,
      "MethodNotAllowed",
    );
  });

  it("405 for a method no route has, with the path's own methods in Allow; 404 where the path has none", async () => {
    const rest = await oneResponse(get("/v1.0/verifications").replace("GET", "PROPFIND"));
    expectEnvelope(rest, 405, "MethodNotAllowed");
    expect(rest.headers.allow).toBe("POST");
    const wallet = await oneResponse(get("/issuers/iss_x/token").replace("GET", "PROPFIND"));
    expectEnvelope(wallet, 405, "MethodNotAllowed");
    expect(wallet.headers.allow).toBe("POST");
    expectEnvelope(
      await oneResponse(get("/v1.0/nothing-here").replace("GET", "PROPFIND")),
      404,
      "RouteNotFound",
    );
  });

  it("503 ServiceUnavailable with Connection: close for a request arriving while the server closes", async () => {
    const server = await startTestServer();
    const { port: serverPort } = new URL(server.baseUrl);
    const socket = net.connect(Number(serverPort), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    const ended = new Promise((resolve) => socket.once("close", resolve));
    // A first request in flight (its body half sent) holds the connection open while closing begins.
    socket.write(
      "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nab",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closed = server.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write(`cd${get("/healthz").replace("Connection: close\r\n", "")}`);
    await closed;
    await ended;
    const [first, second] = parseResponses(answer);
    expect(first?.status).toBe(405);
    expectEnvelope(second!, 503, "ServiceUnavailable");
    expect(second!.headers.connection).toBe("close");
  }, 30_000);
});
