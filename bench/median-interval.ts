/**
 * A distribution-free confidence interval for the median of a few measurements (the sign test's order
 * statistics): with n values sorted, [v(k), v(n+1-k)] holds the true median with probability
 * 1 − 2·P(Binomial(n, ½) < k), whatever the values' distribution. It needs no normality, so one round on a
 * busy machine widens it by one place instead of dragging it; the price is that fewer than 6 values give
 * no 95% interval at all.
 */
export interface MedianInterval {
  low: number;
  high: number;
  /** The interval's exact coverage, at least the level asked for. */
  coverage: number;
}

/** P(Binomial(n, ½) ≤ k). */
function binomialHalfCdf(n: number, k: number): number {
  let term = 0.5 ** n; // C(n, 0)/2^n
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/** The narrowest sign-test interval with coverage ≥ `level`, or undefined when there are too few values. */
export function medianInterval(values: readonly number[], level = 0.95): MedianInterval | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let best: MedianInterval | undefined;
  for (let k = 1; 2 * k <= n; k++) {
    const coverage = 1 - 2 * binomialHalfCdf(n, k - 1);
    if (coverage < level) break;
    best = { low: sorted[k - 1]!, high: sorted[n - k]!, coverage };
  }
  return best;
}
