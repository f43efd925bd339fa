import proxyAddr from "@fastify/proxy-addr";
import ipaddr from "ipaddr.js";

/**
 * The proxies whose `X-Forwarded-For` the API believes (Fastify's `trustProxy`), from TRUST_PROXY:
 * addresses, CIDR ranges or `loopback`, `linklocal`, `uniquelocal`, comma-separated; `none` trusts
 * no proxy. The default, `loopback`, covers the console's proxy of `/trpc` on the same machine.
 * Returns the list Fastify takes, or a problem naming the entry it cannot read.
 */
export function parseTrustProxy(value: string | undefined): { trust: string[] } | { problem: string } {
  const entries = (value ?? "loopback")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 1 && entries[0]!.toLowerCase() === "none") return { trust: [] };
  for (const entry of entries) {
    try {
      proxyAddr.compile(entry);
    } catch {
      return {
        problem: `TRUST_PROXY must list addresses, CIDR ranges, loopback, linklocal or uniquelocal, comma-separated, or be none (cannot read "${entry}").`,
      };
    }
  }
  return { trust: entries.length ? entries : ["loopback"] };
}

/**
 * The client a sign-in is throttled as: its IPv4 address (an IPv4-mapped IPv6 address as IPv4), or
 * its IPv6 /64, since one subscriber usually holds a whole /64 and could otherwise step through it.
 */
export function throttleClient(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv4") return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
