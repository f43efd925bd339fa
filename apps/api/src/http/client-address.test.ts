import { describe, expect, it } from "vitest";
import { parseTrustProxy, throttleClient } from "./client-address";

describe("throttleClient", () => {
  it("keeps IPv4 addresses and unwraps IPv4-mapped IPv6", () => {
    expect(throttleClient("203.0.113.7")).toBe("203.0.113.7");
    expect(throttleClient("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("groups IPv6 addresses by their /64", () => {
    const a = throttleClient("2001:db8:1:2:aaaa::1");
    expect(a).toBe("2001:db8:1:2::/64");
    expect(throttleClient("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe(a);
    expect(throttleClient("2001:db8:1:3::1")).not.toBe(a);
    expect(throttleClient("::1")).toBe("::/64");
  });

  it("passes anything else through as its own client", () => {
    expect(throttleClient("unknown")).toBe("unknown");
  });
});

describe("parseTrustProxy", () => {
  it("trusts loopback by default and reads lists of addresses, ranges and names", () => {
    expect(parseTrustProxy(undefined)).toEqual({ trust: ["loopback"] });
    expect(parseTrustProxy(" ")).toEqual({ trust: ["loopback"] });
    expect(parseTrustProxy("loopback, 10.0.0.0/8,192.0.2.1, fd00::/8")).toEqual({
      trust: ["loopback", "10.0.0.0/8", "192.0.2.1", "fd00::/8"],
    });
    expect(parseTrustProxy("none")).toEqual({ trust: [] });
  });

  it("names an entry it cannot read", () => {
    expect(parseTrustProxy("loopback,proxy.example.com")).toEqual({
      problem: expect.stringContaining('cannot read "proxy.example.com"'),
    });
    expect(parseTrustProxy("10.0.0.0/99")).toHaveProperty("problem");
  });
});
