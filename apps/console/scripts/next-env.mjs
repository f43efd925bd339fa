// What the console's scripts hand to Next.js, kept apart so it can be tested without a build.

/**
 * The environment `next` runs in. `next build` and the production server need NODE_ENV=production,
 * whatever the caller exported: under NODE_ENV=development (the API's documented default mode, so
 * people export it) `next build` fails prerendering /_global-error. `next dev` needs development.
 * The API reads its own mode from the environment `pnpm start` was given, untouched.
 * @param {Record<string, string | undefined>} env
 * @param {"production" | "development"} mode
 */
export function nextEnv(env, mode) {
  return { ...env, NODE_ENV: mode, NEXT_TELEMETRY_DISABLED: "1" };
}

/**
 * X-Forwarded-For as a proxy passes it on: what the client sent (its own word, or earlier proxies'),
 * then the address the request came from. The API believes entries only as far as TRUST_PROXY says,
 * reading from the right.
 * @param {string | string[] | undefined} received
 * @param {string | undefined} remoteAddress
 */
export function forwardedFor(received, remoteAddress) {
  const earlier = (Array.isArray(received) ? received.join(", ") : (received ?? "")).trim();
  if (!remoteAddress) return earlier || undefined;
  return earlier ? `${earlier}, ${remoteAddress}` : remoteAddress;
}
