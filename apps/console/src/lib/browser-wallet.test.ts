import { describe, expect, it, vi } from "vitest";
import { askBrowserWallet, hasDigitalCredentialsApi } from "./browser-wallet";

const request = { protocol: "openid4vp-v1-signed", data: { request: "eyJ…" } };

/** A wallet that answers `answer` (a DigitalCredential's members, not a lib.dom Credential). */
const answering = (answer: unknown) => vi.fn(async () => answer as Credential | null);

describe("askBrowserWallet (the playground as the integrator's page)", () => {
  it("passes the session's request as the one digital request and returns the wallet's answer", async () => {
    const get = answering({ protocol: "openid4vp-v1-signed", data: { response: "jwe" } });
    expect(await askBrowserWallet(request, { get })).toEqual({
      protocol: "openid4vp-v1-signed",
      data: { response: "jwe" },
    });
    expect(get).toHaveBeenCalledWith({ digital: { requests: [request] } });
  });

  it("reads data handed over as a JSON string (early implementations)", async () => {
    const get = answering({ protocol: "openid4vp-v1-unsigned", data: '{"vp_token":{"a":["x"]}}' });
    expect((await askBrowserWallet(request, { get })).data).toEqual({ vp_token: { a: ["x"] } });
  });

  it("says when the wallet declined or answered nothing usable", async () => {
    const declined = vi.fn(async () => {
      throw new DOMException("The user aborted", "AbortError");
    });
    await expect(askBrowserWallet(request, { get: declined })).rejects.toThrow(
      "The wallet did not answer (AbortError: The user aborted).",
    );
    await expect(askBrowserWallet(request, { get: answering(null) })).rejects.toThrow(
      "returned no digital credential",
    );
  });
});

describe("hasDigitalCredentialsApi", () => {
  it("needs DigitalCredential and navigator.credentials.get", () => {
    expect(hasDigitalCredentialsApi({})).toBe(false);
    expect(hasDigitalCredentialsApi({ DigitalCredential: class {}, navigator: {} })).toBe(false);
    expect(
      hasDigitalCredentialsApi({ DigitalCredential: class {}, navigator: { credentials: { get() {} } } }),
    ).toBe(true);
  });
});
