import type { Registry } from "prom-client";

/** One label set's observations: a count per bucket (not cumulative; the last is above every bound), sum and count. */
export interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
}

/**
 * A Prometheus histogram for the hot paths (every request, every SQL statement), registered in a
 * prom-client `Registry` beside its own metrics and exposed in the same text. prom-client's `Histogram`
 * allocates label objects, builds a hash string and turns the bucket bound into a property name on
 * every `observe`: per SQL statement that was most of what metrics cost a flow (docs/performance.md,
 * Session 22). Here a caller holds its series (found once per label set) and an observation is a loop
 * over the bounds and three additions. What a scrape shows is what prom-client's `Histogram` shows for
 * the same observations (bucket-histogram.test.ts holds it to that).
 */
export class BucketHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    // prom-client takes any object with a name and `get` (its own metrics are such objects).
    registry.registerMetric(this as never);
  }

  /**
   * The series of a label set, made on first use: keep it and call `observe` with it. `key` names the
   * label set (e.g. its values joined); the label values must be bounded (no ids).
   */
  seriesOf(key: string, labels: Record<string, string>): HistogramSeries {
    let series = this.series.get(key);
    if (!series) {
      series = { labels, buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    return series;
  }

  observe(series: HistogramSeries, value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    series.buckets[i]!++;
    series.sum += value;
    series.count++;
  }

  reset(): void {
    for (const series of this.series.values()) {
      series.buckets.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }

  /** The exposition values as prom-client's `Histogram` gives them: cumulative buckets, +Inf, sum, count. */
  getForPromString() {
    const values: ExportedValue[] = [];
    for (const series of this.series.values()) {
      const shared = series.labels as Record<string, string>;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.buckets[i]!;
        values.push({
          labels: { le: bound },
          sharedLabels: shared,
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push(
        {
          labels: { le: "+Inf" },
          sharedLabels: shared,
          value: series.count,
          metricName: `${this.name}_bucket`,
        },
        { labels: {}, sharedLabels: shared, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: shared, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The same values with each series' labels beside `le` (prom-client's `get`, used for JSON). */
  get() {
    const data = this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...sharedLabels, ...labels },
        value,
        metricName,
      })),
    };
  }
}
