import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * Outbound-request policy (SSRF protection) shared by everything that calls a caller-supplied URL:
 * webhook subscriptions (at creation and again at delivery time), external issuers' JWKS, …
 * Check at request time too: a name can resolve differently later (DNS rebinding), so callers that
 * connect should pin the returned addresses.
 */

export type AddressCategory =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "unique-local"
  | "multicast"
  | "metadata"
  | "reserved";

export type UrlPolicyReason =
  | "InvalidUrl"
  | "CredentialsInUrl"
  | "HttpsRequired"
  | "MetadataHost"
  | "ForbiddenAddress"
  | "UnresolvableHost";

/** Thrown by `assertPublicHttpsUrl`; callers map it to their own error code. */
export class UrlPolicyViolation extends Error {
  override readonly name = "UrlPolicyViolation";
  constructor(
    readonly reason: UrlPolicyReason,
    message: string,
    readonly category?: AddressCategory,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface UrlPolicyOptions {
  /**
   * Development mode: allows `http:` to loopback hosts and exempts loopback addresses from the
   * private-address check. Never set it in production.
   */
  allowLoopbackHttp?: boolean;
  /** Host names or IP literals exempt from the private-address check (tests, controlled setups). */
  allowedHosts?: readonly string[];
  /** Resolver (all addresses of a host name); defaults to the system resolver. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Give up resolving after this many milliseconds (default 5000). */
  lookupTimeoutMs?: number;
  /**
   * Resolve host names and check their addresses (default true). Set false for a static check of
   * configuration (IP literals and known names only) when the request-time check will resolve.
   */
  resolveHostnames?: boolean;
}

/** Host names of cloud metadata services, refused whatever the allow-list says. */
const METADATA_HOSTS = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

// ---------------------------------------------------------------------------------------------------
// Address classification

type V4Range = [base: string, bits: number, category: AddressCategory];
type V6Range = [base: string, bits: number, category: AddressCategory];

/** Checked in order: the first match wins, so specific addresses precede their enclosing ranges. */
const V4_RANGES: V4Range[] = [
  ["169.254.169.254", 32, "metadata"], // AWS, GCP, Azure, OpenStack instance metadata
  ["169.254.170.2", 32, "metadata"], // AWS ECS task metadata
  ["169.254.169.123", 32, "metadata"], // AWS time sync
  ["100.100.100.200", 32, "metadata"], // Alibaba Cloud metadata
  ["168.63.129.16", 32, "metadata"], // Azure host (wireserver)
  ["0.0.0.0", 8, "unspecified"], // "this network"
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "reserved"], // TEST-NET-1
  ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"], // benchmarking
  ["198.51.100.0", 24, "reserved"], // TEST-NET-2
  ["203.0.113.0", 24, "reserved"], // TEST-NET-3
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"], // incl. 255.255.255.255 broadcast
];

const V6_RANGES: V6Range[] = [
  ["fd00:ec2::254", 128, "metadata"], // AWS instance metadata over IPv6
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::", 96, "reserved"], // IPv4-compatible (deprecated)
  ["100::", 64, "reserved"], // discard-only
  ["64:ff9b:1::", 48, "reserved"], // local-use NAT64
  ["2001::", 32, "reserved"], // Teredo
  ["2001:db8::", 32, "reserved"], // documentation
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "private"], // site-local (deprecated)
  ["ff00::", 8, "multicast"],
];

function parseV4(ip: string): number {
  return ip.split(".").reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}

/** Eight 16-bit groups; accepts `::` compression, an embedded IPv4 tail and a zone id. */
function parseV6(ip: string): number[] {
  let text = ip.split("%")[0]!;
  const lastColon = text.lastIndexOf(":");
  const last = text.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseV4(last);
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const groups = (part: string) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const gap = text.indexOf("::");
  if (gap === -1) return groups(text);
  const head = groups(text.slice(0, gap));
  const tail = groups(text.slice(gap + 2));
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

function v4InRange(addr: number, base: string, bits: number): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (addr & mask) >>> 0 === (parseV4(base) & mask) >>> 0;
}

function v6InRange(addr: number[], base: string, bits: number): boolean {
  const b = parseV6(base);
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((addr[i]! & mask) !== (b[i]! & mask)) return false;
  }
  return true;
}

function classifyV4(ip: string): AddressCategory {
  const addr = parseV4(ip);
  for (const [base, bits, category] of V4_RANGES) if (v4InRange(addr, base, bits)) return category;
  return "public";
}

function embeddedV4(groups: number[], high: number, low: number): string {
  const v = ((groups[high]! << 16) | groups[low]!) >>> 0;
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join(".");
}

function classifyV6(ip: string): AddressCategory {
  const groups = parseV6(ip);
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated forms are judged by the IPv4 address they carry.
  if (v6InRange(groups, "::ffff:0:0", 96)) return classifyV4(embeddedV4(groups, 6, 7));
  if (v6InRange(groups, "64:ff9b::", 96)) return classifyV4(embeddedV4(groups, 6, 7));
  if (v6InRange(groups, "2002::", 16)) return classifyV4(embeddedV4(groups, 1, 2)); // 6to4
  for (const [base, bits, category] of V6_RANGES) if (v6InRange(groups, base, bits)) return category;
  return "public";
}

/** What kind of address `ip` is (IPv4 or IPv6 literal, brackets allowed). Throws on a non-IP. */
export function classifyAddress(ip: string): AddressCategory {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const family = isIP(bare.split("%")[0]!);
  if (family === 4) return classifyV4(bare);
  if (family === 6) return classifyV6(bare);
  throw new TypeError(`not an IP address: ${ip}`);
}

/**
 * True when an outbound request must not reach `ip`: anything but a public unicast address.
 * `allowLoopback` (development mode) lets loopback through.
 */
export function isForbiddenAddress(ip: string, options: { allowLoopback?: boolean } = {}): boolean {
  const category = classifyAddress(ip);
  if (category === "public") return false;
  return !(category === "loopback" && options.allowLoopback);
}

// ---------------------------------------------------------------------------------------------------
// URL policy

const DESCRIBE: Record<Exclude<AddressCategory, "public">, string> = {
  unspecified: "an unspecified address",
  loopback: "a loopback address",
  private: "a private network address",
  "link-local": "a link-local address",
  cgnat: "a carrier-grade NAT address",
  "unique-local": "a unique-local IPv6 address",
  multicast: "a multicast address",
  metadata: "a cloud metadata address",
  reserved: "a reserved or non-routable address",
};

function normaliseHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

function isLocalhostName(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost");
}

async function systemLookup(hostname: string): Promise<ResolvedAddress[]> {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
}

async function resolve(host: string, options: UrlPolicyOptions): Promise<ResolvedAddress[]> {
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family: family as 4 | 6 }];
  const timeoutMs = options.lookupTimeoutMs ?? 5000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const addresses = await Promise.race([
      (options.lookup ?? systemLookup)(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("lookup timed out")), timeoutMs);
      }),
    ]);
    if (addresses.length === 0) throw new Error("no addresses");
    return addresses;
  } catch {
    throw new UrlPolicyViolation(
      "UnresolvableHost",
      `The host '${host}' could not be resolved; check the host name.`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Accepts `input` only when it is an https URL (http to loopback in development mode) whose host is
 * not, and does not resolve to, a non-public address (private, loopback, link-local, CGNAT,
 * unique-local, multicast, unspecified, reserved or cloud metadata). Hosts in `allowedHosts` skip the
 * address check; metadata host names never do. Returns the parsed URL and the addresses it resolved
 * to, so a caller that connects can pin them. Throws `UrlPolicyViolation`.
 */
export async function assertPublicHttpsUrl(
  input: string | URL,
  options: UrlPolicyOptions = {},
): Promise<{ url: URL; addresses: ResolvedAddress[] }> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UrlPolicyViolation("InvalidUrl", "The URL is not valid.");
  }
  if (url.username || url.password) {
    throw new UrlPolicyViolation("CredentialsInUrl", "The URL must not contain a user name or password.");
  }
  const host = normaliseHost(url.hostname);
  if (!host) throw new UrlPolicyViolation("InvalidUrl", "The URL has no host.");
  const family = isIP(host);
  const literalCategory = family !== 0 ? classifyAddress(host) : undefined;
  const loopbackHost = isLocalhostName(host) || literalCategory === "loopback";
  const allowLoopback = options.allowLoopbackHttp === true;

  if (url.protocol === "http:") {
    if (!(allowLoopback && loopbackHost)) {
      throw new UrlPolicyViolation(
        "HttpsRequired",
        allowLoopback ? "Use an https URL (http is allowed for loopback hosts only)." : "Use an https URL.",
      );
    }
  } else if (url.protocol !== "https:") {
    throw new UrlPolicyViolation("HttpsRequired", "Use an https URL.");
  }

  if (METADATA_HOSTS.has(host) || literalCategory === "metadata") {
    throw new UrlPolicyViolation("MetadataHost", "The URL points at a cloud metadata service.", "metadata");
  }
  const allowed = (options.allowedHosts ?? []).some((h) => normaliseHost(h) === host);
  if (!allowed && isLocalhostName(host) && !allowLoopback) {
    throw new UrlPolicyViolation("ForbiddenAddress", "The host is a loopback address.", "loopback");
  }

  if (family === 0 && options.resolveHostnames === false) return { url, addresses: [] };
  const addresses = await resolve(host, options);
  if (!allowed) {
    for (const { address } of addresses) {
      const category = classifyAddress(address);
      if (category === "public" || (category === "loopback" && allowLoopback)) continue;
      throw new UrlPolicyViolation(
        category === "metadata" ? "MetadataHost" : "ForbiddenAddress",
        family !== 0 ? `The host is ${DESCRIBE[category]}.` : `The host resolves to ${DESCRIBE[category]}.`,
        category,
      );
    }
  }
  return { url, addresses };
}
