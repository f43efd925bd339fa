// The per-request metrics path: counts kept per series and handed to prom-client on each scrape, so a
// request does not pay prom-client's label hashing for its counters; the exposition stays exact.
import type { Counter } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createServerMetrics } from "./server-metrics";

const line = (text: string, prefix: string) => text.split("\n").find((l) => l.startsWith(prefix));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("request metrics per series", () => {
  it("counts requests and wallet outcomes exactly, scrape after scrape", async () => {
    const metrics = createServerMetrics();
    for (let i = 0; i < 3; i++) metrics.request("wallet", "token", 200, 0.004);
    metrics.request("wallet", "token", 400, 0.002);
    metrics.walletOutcome("token", "ok");
    metrics.walletOutcome("token", "ok");
    metrics.walletOutcome("token", "invalid_grant");
    let text = await metrics.registry.metrics();
    expect(
      line(
        text,
        'cred_http_requests_total{surface="wallet",operation="token",status_class="2xx",status_code="200"}',
      ),
    ).toMatch(/ 3$/);
    expect(
      line(
        text,
        'cred_http_requests_total{surface="wallet",operation="token",status_class="4xx",status_code="400"}',
      ),
    ).toMatch(/ 1$/);
    expect(line(text, 'cred_wallet_outcomes_total{endpoint="token",outcome="ok"}')).toMatch(/ 2$/);
    expect(line(text, 'cred_wallet_outcomes_total{endpoint="token",outcome="invalid_grant"}')).toMatch(/ 1$/);
    expect(
      line(
        text,
        'cred_http_request_duration_seconds_count{surface="wallet",operation="token",status_class="2xx"}',
      ),
    ).toMatch(/ 3$/);

    // A second scrape neither loses nor repeats what the first one counted.
    metrics.request("wallet", "token", 200, 0.004);
    text = await metrics.registry.metrics();
    expect(
      line(
        text,
        'cred_http_requests_total{surface="wallet",operation="token",status_class="2xx",status_code="200"}',
      ),
    ).toMatch(/ 4$/);
    expect(line(text, 'cred_wallet_outcomes_total{endpoint="token",outcome="ok"}')).toMatch(/ 2$/);
  });

  it("calls prom-client's counter once per series and scrape, not once per request", async () => {
    const metrics = createServerMetrics();
    const counter = (name: string) => metrics.registry.getSingleMetric(name) as Counter;
    const requestsInc = vi.spyOn(counter("cred_http_requests_total"), "inc");
    const outcomesInc = vi.spyOn(counter("cred_wallet_outcomes_total"), "inc");
    for (let i = 0; i < 100; i++) {
      metrics.request("rest", "Issuers_Get", 200, 0.003);
      metrics.walletOutcome("credential", "ok");
    }
    expect(requestsInc).not.toHaveBeenCalled();
    expect(outcomesInc).not.toHaveBeenCalled();
    await metrics.registry.metrics();
    // One series of requests and one of outcomes, each handed over once with its count.
    expect(requestsInc.mock.calls).toEqual([[expect.objectContaining({ operation: "Issuers_Get" }), 100]]);
    expect(outcomesInc.mock.calls).toEqual([[{ endpoint: "credential", outcome: "ok" }, 100]]);
  });
});
