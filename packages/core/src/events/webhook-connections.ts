import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { cacheSpec, ReadThroughCache } from "../shared/caches";
import type { ResolvedAddress } from "../shared/network-policy";

/** Idle connections close after this long: below the 5 s keep-alive timeout most servers (Node's included) use. */
const IDLE_MS = 4000;
/**
 * Distinct (origin, addresses) pools kept; the least recently used is dropped beyond this (its idle
 * sockets time out).
 */
const MAX_POOLS = 256;

/** A resolver that only ever answers with the addresses the URL policy checked (no second lookup). */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) {
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
      return;
    }
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  }) as LookupFunction;
}

/** Keep-alive pools by origin and pinned addresses (see `WebhookConnections`). */
export const WEBHOOK_CONNECTION_POOLS = cacheSpec<http.Agent>("events.webhookConnectionPools", {
  max: MAX_POOLS,
});

/**
 * Keep-alive connections for webhook attempts, pooled per origin AND the set of addresses the URL
 * policy just checked. A connection is only ever opened to checked addresses (pinned lookup) and only
 * reused for an attempt whose own check resolved to the same set, so the per-attempt address check
 * (DNS rebinding) holds exactly as with a new connection per attempt, without a TCP (and TLS) handshake
 * per delivery. The pools live in the server's caches (`WEBHOOK_CONNECTION_POOLS` in `deps.caches`), so
 * the delivery workers of one server share them and no module keeps any.
 */
export class WebhookConnections {
  constructor(
    private readonly pools: ReadThroughCache<http.Agent> = new ReadThroughCache(WEBHOOK_CONNECTION_POOLS),
  ) {}

  /** The pool for `url` pinned to `addresses`. */
  agentFor(url: URL, addresses: ResolvedAddress[]): http.Agent {
    // A set: round-robin DNS answers the same addresses in a new order each time.
    const pinned = addresses
      .map((a) => a.address)
      .sort()
      .join(",");
    const key = `${url.protocol}//${url.host}|${pinned}`;
    let agent = this.pools.peek(key);
    if (!agent) {
      const options = { keepAlive: true, timeout: IDLE_MS, scheduling: "lifo" as const };
      agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
      this.pools.set(key, agent);
    }
    return agent;
  }

  /** Closes every pooled connection; the next attempts open new ones. */
  close(): void {
    for (const agent of this.pools.values()) agent.destroy();
    this.pools.clear();
  }
}
