/**
 * What spans record of URLs: exported traces leave this process for a collector, so they keep no more
 * than the logs do. A wallet or verifier handle in a path is a capability (the offer with its
 * pre-authorized code, a presentation request or response), and a query or a tenant's webhook URL may
 * carry tokens: handles become `:handle`, query values `REDACTED` (the names stay, to show the shape).
 */
const HANDLE_PATHS = [/^(\/issuers\/[^/]+\/offers\/)[^/]+/, /^(\/verifier\/(?:requests|responses)\/)[^/]+/];

function redactedQuery(search: string): string {
  const params = new URLSearchParams(search);
  return [...params.keys()].map((name) => `${encodeURIComponent(name)}=REDACTED`).join("&");
}

/** `url.path` and `url.query` for a server span, from the request target (`/path?query`). */
export function incomingUrlAttributes(target: string): Record<string, string> {
  const at = target.indexOf("?");
  let path = at === -1 ? target : target.slice(0, at);
  // Only paths under these two prefixes can hold a handle: the others skip the patterns.
  if (path.startsWith("/issuers/") || path.startsWith("/verifier/"))
    for (const pattern of HANDLE_PATHS) path = path.replace(pattern, "$1:handle");
  return at === -1
    ? { "url.path": path }
    : { "url.path": path, "url.query": redactedQuery(target.slice(at + 1)) };
}

/** `url.full` for a client span: the URL with its query values redacted (and no credentials). */
export function outgoingUrlFull(url: URL): string {
  const query = url.search ? `?${redactedQuery(url.search.slice(1))}` : "";
  return `${url.protocol}//${url.host}${url.pathname}${query}`;
}
