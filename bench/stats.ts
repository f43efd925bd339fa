/** Latency samples in milliseconds and their percentiles. */
export class Samples {
  private values: number[] = [];
  add(ms: number) {
    this.values.push(ms);
  }
  get count() {
    return this.values.length;
  }
  summary(): LatencySummary {
    const sorted = Float64Array.from(this.values).sort();
    const at = (q: number) =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;
    const sum = sorted.reduce((a, b) => a + b, 0);
    return {
      count: sorted.length,
      mean: sorted.length ? sum / sorted.length : 0,
      p50: at(0.5),
      p95: at(0.95),
      p99: at(0.99),
      max: sorted.length ? sorted[sorted.length - 1]! : 0,
    };
  }
}

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}
