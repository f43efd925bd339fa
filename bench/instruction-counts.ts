// The arithmetic of bench/observability-instructions.ts: a callgrind dump's total, and a window's
// instructions per flow projected to the real rate.

/** The instruction total of a callgrind dump (its `totals:` or `summary:` line). */
export function dumpTotal(text: string): number {
  const total = /^(?:totals|summary):\s*(\d+)/m.exec(text);
  if (!total) throw new Error("no totals line in the callgrind dump");
  return Number(total[1]);
}

/** A window of flows counted under callgrind. */
export interface FlowWindow {
  instructions: number;
  seconds: number;
  flows: number;
}

/**
 * Instructions per flow at `rate` flows a second. Under valgrind the server runs far slower, so the work it
 * does by the clock (timers, pollers: `idlePerSecond`, counted in a window without requests) falls on far
 * fewer flows than at the real rate: it is taken out of the window and shared by `rate` flows a second
 * instead, and a scrape every `scrapeEvery` seconds is shared by `rate × scrapeEvery` flows.
 */
export function projectedPerFlow(
  window: FlowWindow,
  idlePerSecond: number,
  perScrape: number,
  rate: number,
  scrapeEvery: number,
): number {
  const work = (window.instructions - idlePerSecond * window.seconds) / window.flows;
  return work + idlePerSecond / rate + perScrape / (rate * scrapeEvery);
}
