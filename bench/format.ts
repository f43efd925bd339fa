/** A number as the bench's reports print it: `digits` decimals, or "–" when there is none (missing, NaN, ∞). */
export const f = (n: number | null | undefined, digits = 1) =>
  n !== null && n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : "–";
