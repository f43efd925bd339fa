// The hot paths' histogram (bucket-histogram.ts) against prom-client's own Histogram as the oracle: the
// same observations give the same exposition text, series by series, after a reset too.
import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { BucketHistogram } from "./bucket-histogram";

const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

function both(labelNames: string[]) {
  const oracleRegistry = new Registry();
  const oursRegistry = new Registry();
  const oracle = new Histogram({
    name: "x_seconds",
    help: "A duration.",
    labelNames,
    buckets: BOUNDS,
    registers: [oracleRegistry],
  });
  const ours = new BucketHistogram("x_seconds", "A duration.", BOUNDS, oursRegistry);
  return { oracle, ours, oracleRegistry, oursRegistry };
}

// A fixed pseudo-random sequence (no Math.random: a failure reproduces).
function* values(n: number) {
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    yield (x / 2 ** 31) ** 3 * 8;
  }
}

describe("BucketHistogram", () => {
  it("exposes what prom-client's Histogram exposes for the same observations, without labels", async () => {
    const { oracle, ours, oracleRegistry, oursRegistry } = both([]);
    const series = ours.seriesOf("", {});
    // Values on the bounds themselves go to that bound's bucket (le is "less than or equal").
    for (const value of [...values(500), ...BOUNDS, 0, 10]) {
      oracle.observe(value);
      ours.observe(series, value);
    }
    expect(await oursRegistry.metrics()).toBe(await oracleRegistry.metrics());
    // As JSON too (prom-client's values also carry an empty `exemplar`, which ours leave out).
    const json = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).map((metric) => ({
        ...metric,
        values: metric.values.map((v) => ({
          labels: v.labels,
          value: v.value,
          metricName: (v as { metricName?: string }).metricName,
        })),
      }));
    expect(await json(oursRegistry)).toEqual(await json(oracleRegistry));
  });

  it("keeps each label set's series apart, in the order they were first seen", async () => {
    const { oracle, ours, oracleRegistry, oursRegistry } = both(["surface", "operation", "status_class"]);
    const sets = [
      { surface: "wallet", operation: "token", status_class: "2xx" },
      { surface: "rest", operation: "Issuers_Get", status_class: "4xx" },
      { surface: "wallet", operation: "credential", status_class: "2xx" },
    ];
    let i = 0;
    for (const value of values(300)) {
      const labels = sets[i++ % sets.length]!;
      oracle.observe(labels, value);
      ours.observe(ours.seriesOf(Object.values(labels).join(" "), labels), value);
    }
    const text = await oursRegistry.metrics();
    expect(text).toBe(await oracleRegistry.metrics());
    expect(text).toContain('x_seconds_count{surface="rest",operation="Issuers_Get",status_class="4xx"} 100');

    oracle.reset();
    ours.reset();
    for (const value of values(7)) {
      oracle.observe(sets[0]!, value);
      ours.observe(ours.seriesOf(Object.values(sets[0]!).join(" "), sets[0]!), value);
    }
    // After a reset prom-client drops the series; ours keeps them at zero (their lines stay, counting 0).
    const after = await oursRegistry.metrics();
    expect(after).toContain('x_seconds_count{surface="wallet",operation="token",status_class="2xx"} 7');
    expect(after).toContain('x_seconds_count{surface="rest",operation="Issuers_Get",status_class="4xx"} 0');
    const oracleAfter = await oracleRegistry.metrics();
    for (const line of oracleAfter.split("\n")) expect(after.split("\n")).toContain(line);
  });

  it("skips a value that is not a finite number instead of spoiling the sum", async () => {
    const registry = new Registry();
    const ours = new BucketHistogram("y_seconds", "A duration.", [1], registry);
    const series = ours.seriesOf("", {});
    ours.observe(series, Number.NaN);
    ours.observe(series, Number.POSITIVE_INFINITY);
    ours.observe(series, 0.5);
    const text = await registry.metrics();
    expect(text).toContain("y_seconds_sum 0.5");
    expect(text).toContain("y_seconds_count 1");
  });
});
