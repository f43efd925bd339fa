const MAX_URI_LENGTH = 2_000;
/** Schemes a browser runs as script, reads locally, or hands to OS handlers known to be abused. */
const REFUSED_SCHEMES = new Set([
  "javascript",
  "data",
  "vbscript",
  "file",
  "blob",
  "about",
  "filesystem",
  "view-source",
  "ms-msdt",
  "search-ms",
  "search",
  "ms-officecmd",
  "ms-excel",
  "ms-word",
  "ms-powerpoint",
]);
/** Parameters of the authorization response, which a redirect URI must not already carry (RFC 6749 §3.1). */
const RESPONSE_PARAMETERS = ["code", "state", "iss", "error", "error_description", "error_uri"];

/**
 * Where an authorization response may be sent: an absolute URI without fragment (RFC 6749 §3.1.2),
 * https, a wallet's private-use scheme (RFC 8252 §7.1, e.g. `eudi-openid4ci:`), or http to a loopback
 * address (§7.3). Schemes a browser would run as script, read locally or hand to an abused OS handler
 * are refused, and so is a query that already carries a response parameter (`code`, `state`, …).
 */
export function isAcceptableRedirectUri(value: string): boolean {
  if (value.length > MAX_URI_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (value.includes("#")) return false;
  if (RESPONSE_PARAMETERS.some((name) => url.searchParams.has(name))) return false;
  const scheme = url.protocol.slice(0, -1);
  if (REFUSED_SCHEMES.has(scheme)) return false;
  if (scheme === "http") return LOOPBACK_HOSTS.includes(url.hostname);
  return true;
}

const LOOPBACK_HOSTS = ["127.0.0.1", "[::1]", "localhost"];

/** An http loopback URI without its port (normalised), for comparison; other URIs as they are. */
function withoutLoopbackPort(value: string): string {
  if (!value.startsWith("http://")) return value;
  try {
    const url = new URL(value);
    if (!LOOPBACK_HOSTS.includes(url.hostname)) return value;
    url.port = "";
    return url.toString();
  } catch {
    return value;
  }
}

/**
 * Whether a redirect URI is one of those registered: compared exactly (RFC 9700 §4.1.1), except that
 * an http loopback URI matches whatever its port (RFC 8252 §7.3: native apps listen on ephemeral ports).
 */
export function isRegisteredRedirectUri(registered: readonly string[], value: string): boolean {
  if (registered.includes(value)) return true;
  const portless = withoutLoopbackPort(value);
  return registered.some((r) => withoutLoopbackPort(r) === portless);
}
