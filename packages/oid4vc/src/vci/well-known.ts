/** Well-known suffixes used by this platform. */
export type WellKnownKind =
  | "openid-credential-issuer"
  | "oauth-authorization-server"
  | "jwt-vc-issuer"
  | (string & {});

function parseIdentifier(identifierUrl: string): URL {
  const url = new URL(identifierUrl);
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new TypeError("identifier must be an http(s) URL");
  if (url.search || url.hash || identifierUrl.includes("?") || identifierUrl.includes("#")) {
    throw new TypeError("identifier must not have a query or fragment");
  }
  return url;
}

/**
 * Path insertion (RFC 8414 §3.1, OpenID4VCI §12.2.2, SD-JWT VC §4): `https://h/a/b` becomes
 * `https://h/.well-known/<kind>/a/b`; a terminating `/` of the path is removed first.
 */
export function wellKnownPath(kind: WellKnownKind, identifierUrl: string): string {
  const url = parseIdentifier(identifierUrl);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}/.well-known/${kind}${path}`;
}

/**
 * Inverse of `wellKnownPath`, for routing: given the URL (or just the path) of a well-known request,
 * returns the identifier it is about, or null when it is not a `<kind>` well-known URL.
 * With only a path, pass `origin` (e.g. the platform's public base URL).
 */
export function identifierFromWellKnownUrl(
  kind: WellKnownKind,
  requestUrl: string,
  origin?: string,
): string | null {
  const url = new URL(requestUrl, origin ?? "http://invalid.invalid");
  if (!origin && url.host === "invalid.invalid") throw new TypeError("a path needs an origin");
  const prefix = `/.well-known/${kind}`;
  const { pathname } = url;
  if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return null;
  const rest = pathname.slice(prefix.length);
  if (rest === "/") return null; // a terminating slash is never produced by wellKnownPath
  return `${url.origin}${rest}`;
}
