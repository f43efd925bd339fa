import { describe, expect, it } from "vitest";
import { WebhookConnections } from "./webhook-connections";

describe("WebhookConnections", () => {
  const v4 = (address: string) => ({ address, family: 4 as const });

  it("shares a pool only between attempts to the same origin pinned to the same addresses", () => {
    const connections = new WebhookConnections();
    const url = new URL("https://hooks.example.com/a");
    const pool = connections.agentFor(url, [v4("203.0.114.1")]);
    expect(connections.agentFor(new URL("https://hooks.example.com/b?x=1"), [v4("203.0.114.1")])).toBe(pool);
    expect(connections.agentFor(url, [v4("203.0.114.2")])).not.toBe(pool);
    const both = connections.agentFor(url, [v4("203.0.114.1"), v4("203.0.114.2")]);
    expect(both).not.toBe(pool);
    expect(connections.agentFor(url, [v4("203.0.114.2"), v4("203.0.114.1")])).toBe(both);
    expect(connections.agentFor(new URL("https://hooks.example.com:8443/a"), [v4("203.0.114.1")])).not.toBe(
      pool,
    );
    expect(connections.agentFor(new URL("http://hooks.example.com/a"), [v4("203.0.114.1")])).not.toBe(pool);
    connections.close();
  });

  it("starts new pools after close", () => {
    const connections = new WebhookConnections();
    const pool = connections.agentFor(new URL("https://hooks.example.com/a"), [v4("203.0.114.1")]);
    connections.close();
    expect(connections.agentFor(new URL("https://hooks.example.com/a"), [v4("203.0.114.1")])).not.toBe(pool);
    connections.close();
  });
});
