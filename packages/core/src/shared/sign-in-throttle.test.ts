import { describe, expect, it } from "vitest";
import { DomainError } from "./errors";
import { backoffSeconds, createSignInThrottle, describeWait, SIGN_IN_THROTTLE } from "./sign-in-throttle";

describe("backoffSeconds", () => {
  it("is free for the free failures, then doubles from the first wait up to the cap", () => {
    const waits = Array.from({ length: 12 }, (_, i) => backoffSeconds(SIGN_IN_THROTTLE, 5, i + 1));
    expect(waits).toEqual([0, 0, 0, 0, 30, 60, 120, 240, 480, 900, 900, 900]);
    expect(backoffSeconds(SIGN_IN_THROTTLE, 5, 10_000)).toBe(900);
  });
});

describe("describeWait", () => {
  it("says seconds below a minute and a half, whole minutes (rounded up) beyond", () => {
    expect(describeWait(1)).toBe("1 second");
    expect(describeWait(30)).toBe("30 seconds");
    expect(describeWait(89)).toBe("89 seconds");
    expect(describeWait(90)).toBe("2 minutes");
    expect(describeWait(900)).toBe("15 minutes");
  });
});

describe("createSignInThrottle (memory store)", () => {
  const policy = { ...SIGN_IN_THROTTLE, pairFreeFailures: 2, firstWaitSeconds: 60 };

  it("keys accounts case-insensitively and refuses with Retry-After once the pair must wait", async () => {
    const throttle = await createSignInThrottle(policy);
    expect((await throttle.begin("Owner@Example.test", "192.0.2.1")).waitIfFailed).toBe(0);
    expect((await throttle.begin("owner@example.test", "192.0.2.1")).waitIfFailed).toBe(60);
    const refused = await throttle.begin("owner@example.test", "192.0.2.1").catch((e) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: "Throttled", headers: { "Retry-After": "60" } });
    expect(refused.message).toBe("Too many failed sign-ins from your address. Try again in 60 seconds.");
    // Another client is a fresh pair.
    expect((await throttle.begin("owner@example.test", "192.0.2.2")).waitIfFailed).toBe(0);
  });

  it("forgets a pair's failures on success", async () => {
    const throttle = await createSignInThrottle(policy);
    await throttle.begin("owner@example.test", "192.0.2.1");
    const second = await throttle.begin("owner@example.test", "192.0.2.1");
    await second.succeeded();
    expect((await throttle.begin("owner@example.test", "192.0.2.1")).waitIfFailed).toBe(0);
  });
});
