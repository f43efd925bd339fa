/**
 * Swagger UI's request interceptor for the interactive reference (/docs). The API key travels as
 * `Authorization: ApiKey <key>` (the `ApiKey` scheme of openapi.json), and for that scheme "Authorize"
 * sends what was pasted as the whole header, so the bare key that the bootstrap, the CLI and the console
 * hand out would be refused. The interceptor puts the scheme in front of it; a key pasted with `ApiKey `
 * keeps working, and one pasted with `Bearer ` (what other APIs ask for) is sent with `ApiKey ` instead.
 * A value with another scheme is left as it is, for the API to refuse with its own message.
 *
 * It runs in the browser: the page gets its source (`Function.prototype.toString`), so it must use
 * nothing from outside its own body.
 */
export function completeApiKeyAuthorization<R extends { headers?: Record<string, unknown> }>(request: R): R {
  const headers = request.headers ?? {};
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== "authorization") continue;
    const key = String(headers[name])
      .trim()
      .replace(/^(?:apikey|bearer)\s+/i, "");
    if (key !== "" && !/\s/.test(key)) headers[name] = `ApiKey ${key}`;
  }
  return request;
}
