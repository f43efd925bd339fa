import { describe, expect, it } from "vitest";
import {
  assertPublicHttpsUrl,
  classifyAddress,
  isForbiddenAddress,
  type ResolvedAddress,
  UrlPolicyViolation,
} from "./network-policy";

const lookupOf =
  (table: Record<string, string[]>) =>
  async (host: string): Promise<ResolvedAddress[]> => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "accepted";
  } catch (error) {
    if (error instanceof UrlPolicyViolation) return error.reason;
    throw error;
  }
}

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["0.0.0.0", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.1.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.128.0.1", "public"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1%eth0", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fd00:ec2::254", "metadata"],
    ["ff02::1", "multicast"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::a00:1", "private"],
    ["2002:c0a8:101::1", "private"],
    ["2001:db8::1", "reserved"],
    ["2606:4700:4700::1111", "public"],
  ])("%s is %s", (ip, category) => {
    expect(classifyAddress(ip)).toBe(category);
  });

  it("rejects non-addresses", () => {
    expect(() => classifyAddress("example.com")).toThrow(TypeError);
  });

  it("isForbiddenAddress lets loopback through only when asked", () => {
    expect(isForbiddenAddress("8.8.8.8")).toBe(false);
    expect(isForbiddenAddress("127.0.0.1")).toBe(true);
    expect(isForbiddenAddress("127.0.0.1", { allowLoopback: true })).toBe(false);
    expect(isForbiddenAddress("10.0.0.1", { allowLoopback: true })).toBe(true);
  });
});

describe("assertPublicHttpsUrl", () => {
  const lookup = lookupOf({
    "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "mixed.example.com": ["93.184.215.14", "10.0.0.5"],
    "rebind.example.com": ["169.254.169.254"],
    localhost: ["127.0.0.1", "::1"],
  });

  it("accepts a public https URL and returns the resolved addresses", async () => {
    const { url, addresses } = await assertPublicHttpsUrl("https://hooks.example.com/in", { lookup });
    expect(url.hostname).toBe("hooks.example.com");
    expect(addresses).toHaveLength(2);
  });

  it.each([
    ["http://hooks.example.com/in", {}, "HttpsRequired"],
    ["ftp://hooks.example.com/in", {}, "HttpsRequired"],
    ["not a url", {}, "InvalidUrl"],
    ["https://user:pw@hooks.example.com/", {}, "CredentialsInUrl"],
    ["https://10.0.0.1/", {}, "ForbiddenAddress"],
    ["https://192.168.0.10/", {}, "ForbiddenAddress"],
    ["https://172.16.5.4/", {}, "ForbiddenAddress"],
    ["https://169.254.169.254/latest/meta-data", {}, "MetadataHost"],
    ["https://[fd00:ec2::254]/", {}, "MetadataHost"],
    ["https://metadata.google.internal/", { allowedHosts: ["metadata.google.internal"] }, "MetadataHost"],
    ["https://[::1]/", {}, "ForbiddenAddress"],
    ["https://localhost/", {}, "ForbiddenAddress"],
    ["https://mixed.example.com/", {}, "ForbiddenAddress"],
    ["https://rebind.example.com/", {}, "MetadataHost"],
    ["https://unknown.invalid/", {}, "UnresolvableHost"],
    ["http://10.0.0.1/", { allowLoopbackHttp: true }, "HttpsRequired"],
    ["https://0x7f.1/", {}, "ForbiddenAddress"],
    ["https://2130706433/", {}, "ForbiddenAddress"],
  ])("refuses %s", async (url, options, reason) => {
    expect(await reasonOf(assertPublicHttpsUrl(url, { lookup, ...options }))).toBe(reason);
  });

  it("allows http and https to loopback in development mode", async () => {
    const dev = { lookup, allowLoopbackHttp: true };
    expect(await reasonOf(assertPublicHttpsUrl("http://127.0.0.1:8080/hook", dev))).toBe("accepted");
    expect(await reasonOf(assertPublicHttpsUrl("http://localhost:8080/hook", dev))).toBe("accepted");
    expect(await reasonOf(assertPublicHttpsUrl("http://[::1]:8080/hook", dev))).toBe("accepted");
    expect(await reasonOf(assertPublicHttpsUrl("https://localhost/hook", dev))).toBe("accepted");
  });

  it("exempts allow-listed hosts from the address check, not from https", async () => {
    const allowedHosts = ["localhost", "10.0.0.1"];
    expect(await reasonOf(assertPublicHttpsUrl("https://localhost/", { lookup, allowedHosts }))).toBe(
      "accepted",
    );
    expect(await reasonOf(assertPublicHttpsUrl("https://10.0.0.1/", { lookup, allowedHosts }))).toBe(
      "accepted",
    );
    expect(await reasonOf(assertPublicHttpsUrl("http://10.0.0.1/", { lookup, allowedHosts }))).toBe(
      "HttpsRequired",
    );
  });

  it("checks literals and known names only when resolution is off", async () => {
    const never = async (): Promise<ResolvedAddress[]> => {
      throw new Error("must not resolve");
    };
    const options = { lookup: never, resolveHostnames: false };
    expect(await reasonOf(assertPublicHttpsUrl("https://issuer.example.org/jwks", options))).toBe("accepted");
    expect(await reasonOf(assertPublicHttpsUrl("https://10.0.0.1/jwks", options))).toBe("ForbiddenAddress");
    expect(await reasonOf(assertPublicHttpsUrl("https://localhost/jwks", options))).toBe("ForbiddenAddress");
    expect(await reasonOf(assertPublicHttpsUrl("https://metadata.goog/", options))).toBe("MetadataHost");
  });

  it("times out slow lookups", async () => {
    const slow = () => new Promise<ResolvedAddress[]>(() => {});
    expect(
      await reasonOf(assertPublicHttpsUrl("https://slow.example/", { lookup: slow, lookupTimeoutMs: 20 })),
    ).toBe("UnresolvableHost");
  });
});
