import { describe, expect, it } from "vitest";
import { isDigitalCredentialsApiAvailable, verify, WebVerifyError } from "./index";

type Call = { url: string; body: unknown };

function backend(answers: Record<string, (body: unknown) => { status: number; body: unknown }>) {
  const calls: Call[] = [];
  const fetchFn = (async (url: string, init: { body: string }) => {
    const body = JSON.parse(init.body);
    calls.push({ url, body });
    const answer = answers[url]!(body);
    return new Response(JSON.stringify(answer.body), { status: answer.status });
  }) as unknown as typeof fetch;
  return { calls, fetchFn };
}

const dcApiRequest = { protocol: "openid4vp-v1-signed", data: { request: "eyJ…" } };

describe("isDigitalCredentialsApiAvailable", () => {
  it("needs DigitalCredential and navigator.credentials.get", () => {
    expect(isDigitalCredentialsApiAvailable({})).toBe(false);
    expect(isDigitalCredentialsApiAvailable({ DigitalCredential: class {} })).toBe(false);
    expect(
      isDigitalCredentialsApiAvailable({
        DigitalCredential: class {},
        navigator: { credentials: { get: () => null } },
      }),
    ).toBe(true);
  });
});

describe("verify", () => {
  it("with the API: creates with dcApi, passes dcApiRequest to credentials.get, posts { id, protocol, data }", async () => {
    const { calls, fetchFn } = backend({
      "/create": () => ({ status: 201, body: { data: { id: "vs_1", status: "pending", dcApiRequest } } }),
      "/submit/vs_1": () => ({ status: 200, body: { data: { id: "vs_1", status: "verified" } } }),
    });
    let asked: unknown;
    const result = await verify({
      createUrl: "/create",
      submitUrl: (id) => `/submit/${id}`,
      fetch: fetchFn,
      credentials: {
        get: async (options) => {
          asked = options;
          return { protocol: "openid4vp-v1-signed", data: '{"response":"jwe"}' } as unknown as Credential;
        },
      },
    });
    expect(asked).toEqual({ digital: { requests: [dcApiRequest] } });
    expect(calls).toEqual([
      { url: "/create", body: { dcApi: true } },
      {
        url: "/submit/vs_1",
        body: { id: "vs_1", protocol: "openid4vp-v1-signed", data: { response: "jwe" } },
      },
    ]);
    expect(result).toEqual({ channel: "dc_api", session: { id: "vs_1", status: "verified" } });
  });

  it("without the API: an ordinary verification through onFallback", async () => {
    const session = { id: "vs_2", status: "pending", authorizationRequestUri: "openid4vp://?client_id=x" };
    const { calls, fetchFn } = backend({ "/create": () => ({ status: 201, body: session }) });
    let shown: unknown;
    const result = await verify({
      createUrl: "/create",
      submitUrl: "/submit",
      fetch: fetchFn,
      window: {},
      onFallback: (s) => {
        shown = s;
      },
    });
    expect(calls).toEqual([{ url: "/create", body: { dcApi: false } }]);
    expect(shown).toEqual(session);
    expect(result.channel).toBe("fallback");
  });

  it("errors: a failing backend, a dismissed wallet dialog", async () => {
    const failing = backend({ "/create": () => ({ status: 500, body: { error: "x" } }) });
    await expect(
      verify({ createUrl: "/create", submitUrl: "/s", fetch: failing.fetchFn, window: {} }),
    ).rejects.toMatchObject({ kind: "backend", status: 500 });
    const ok = backend({
      "/create": () => ({ status: 201, body: { id: "vs_3", status: "pending", dcApiRequest } }),
    });
    const dismissed = verify({
      createUrl: "/create",
      submitUrl: "/s",
      fetch: ok.fetchFn,
      credentials: {
        get: async () => {
          throw new DOMException("dismissed", "NotAllowedError");
        },
      },
    });
    await expect(dismissed).rejects.toBeInstanceOf(WebVerifyError);
    await expect(dismissed).rejects.toMatchObject({ kind: "wallet" });
  });
});
