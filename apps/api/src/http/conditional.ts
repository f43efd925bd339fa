/**
 * HTTP content negotiation and conditional requests (RFC 9110 §12.5.3, §13.1.2) for the few responses
 * that offer them: status list tokens, which relying parties fetch again and again.
 */

/** Whether `Accept-Encoding` admits gzip: named (or `x-gzip`) with q > 0, or `*` with q > 0 when gzip is not named. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  let named: number | undefined;
  let wildcard: number | undefined;
  for (const item of acceptEncoding.split(",")) {
    const [coding = "", ...params] = item.split(";").map((part) => part.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const weight = Number.isFinite(q) ? q : 0;
    if (coding === "gzip" || coding === "x-gzip") named = Math.max(named ?? 0, weight);
    else if (coding === "*") wildcard = weight;
  }
  return (named ?? wildcard ?? 0) > 0;
}

/**
 * Whether `If-None-Match` names one of `etags` (weak comparison) or is `*`: the client's copy is current.
 * The tags of one resource's representations (plain and gzipped) are all current together.
 */
export function matchesIfNoneMatch(ifNoneMatch: string | undefined, etags: readonly string[]): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const current = new Set(etags.map(opaque));
  return ifNoneMatch.split(",").some((tag) => current.has(opaque(tag)));
}

/** The strong tag of a gzip-encoded representation: RFC 9110 §8.8.3 wants it to differ from the plain one's. */
export const gzipEtag = (etag: string) => etag.replace(/"$/, '-gz"');
