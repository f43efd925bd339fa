import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchThroughConsole, isJsonResponse } from "./unreachable";

afterEach(() => vi.unstubAllGlobals());

/** What the console shows for a call: the envelope inside tRPC's error body. */
async function envelope(response: Response) {
  const body = (await response.json()) as {
    error: { data: { httpStatus: number; envelope: { error: unknown } } };
  };
  return {
    status: response.status,
    httpStatus: body.error.data.httpStatus,
    error: body.error.data.envelope.error,
  };
}

describe("the console's tRPC fetch", () => {
  it("passes JSON answers through, errors included", async () => {
    const answer = Response.json([{ error: { message: "nope" } }], { status: 403 });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => answer),
    );
    expect(await fetchThroughConsole("/trpc/staff.me")).toBe(answer);
  });

  it("turns a console server that does not answer into ConsoleUnreachable", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => {
        throw new TypeError("Failed to fetch");
      }),
    );
    expect(await envelope(await fetchThroughConsole("/trpc/staff.me"))).toEqual({
      status: 502,
      httpStatus: 502,
      error: expect.objectContaining({
        code: "ConsoleUnreachable",
        message: "The console's server is not reachable. Check that it is running, then retry.",
      }),
    });
  });

  it("turns an HTML page (a gateway's, a crash page) into ConsoleUnreachable instead of a JSON parse error", async () => {
    const page = new Response("<!DOCTYPE html><p>Bad gateway</p>", {
      status: 504,
      headers: { "content-type": "text/html" },
    });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => page),
    );
    const { error } = await envelope(await fetchThroughConsole("/trpc/staff.me"));
    expect(error).toMatchObject({ code: "ConsoleUnreachable", message: expect.stringContaining("HTTP 504") });
  });

  it("recognises JSON by its media type", () => {
    const typed = (type: string) => new Response("", { headers: { "content-type": type } });
    expect(isJsonResponse(typed("application/json"))).toBe(true);
    expect(isJsonResponse(typed("application/json; charset=utf-8"))).toBe(true);
    expect(isJsonResponse(typed("application/problem+json"))).toBe(true);
    expect(isJsonResponse(typed("text/html"))).toBe(false);
    expect(isJsonResponse(typed("text/plain"))).toBe(false);
    expect(isJsonResponse(new Response(null))).toBe(false);
  });
});
