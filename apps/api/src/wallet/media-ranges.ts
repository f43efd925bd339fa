/** `Accept` parsed into media ranges with their weights (RFC 9110 §12.5.1; an unreadable q counts as 1). */
function mediaRanges(accept: string): { type: string; q: number }[] {
  return accept.split(",").map((range) => {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(weight) ? weight : 1 };
  });
}

/** The weight `Accept` gives a media type: that of the most specific range matching it (RFC 9110 §12.5.1). */
function weightOf(ranges: { type: string; q: number }[], type: string): number {
  for (const range of [type, `${type.split("/")[0]}/*`, "*/*"]) {
    const matching = ranges.filter((r) => r.type === range);
    if (matching.length > 0) return Math.max(...matching.map((r) => r.q));
  }
  return 0;
}

/**
 * Whether `Accept` weighs signed metadata (`application/jwt`) above JSON: JSON, the form every wallet
 * must understand, wins ties (a wildcard weighs for both).
 */
export function prefersJwt(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = mediaRanges(accept);
  return weightOf(ranges, "application/jwt") > weightOf(ranges, "application/json");
}

/**
 * Whether `Accept` asks for the CWT form of a status list and not the JWT one (Token Status List §8.1
 * negotiates by media type): that request gets 406. Any other `Accept`, or none, gets the JWT, the one
 * form served (RFC 9110 lets a server disregard an `Accept` it cannot meet).
 */
export function wantsOnlyCwt(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = mediaRanges(accept);
  const accepted = ranges.filter((range) => range.q > 0).map((range) => range.type);
  // An explicit q=0 for the JWT form outranks a wildcard that would take it.
  const jwtRefused = ranges.some((r) => r.type === "application/statuslist+jwt" && r.q === 0);
  const jwtOk =
    !jwtRefused && accepted.some((t) => ["application/statuslist+jwt", "application/*", "*/*"].includes(t));
  return !jwtOk && accepted.includes("application/statuslist+cwt");
}
