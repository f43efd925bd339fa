// What `pnpm start` prints once the API and the console answer (scripts/start.mjs): the last thing it
// writes, so the console URL, and on first start the login and API key, are what a terminal shows.

/**
 * The banner's lines. `bootstrap`: the contents of DATA_DIR/bootstrap.json, or null when there is none;
 * `firstStart`: it was written by this start (the secrets are repeated, since the console's build output
 * followed the API's own lines); `where`: how to name that file.
 */
export function startBanner({ consoleUp, consoleExit, consoleUrl, apiUrl, bootstrap, firstStart, where }) {
  const lines = [
    "",
    consoleUp ? "Ready." : "Ready, without the console.",
    consoleUp
      ? `  Console:  ${consoleUrl}`
      : `  Console:  not running (${consoleExit ?? "no answer"}; see its output above)`,
    `  API:      ${apiUrl}   (reference: ${apiUrl}/docs)`,
  ];
  if (bootstrap && firstStart) {
    lines.push(
      `  Console sign-in:  ${bootstrap.consoleEmail} / ${bootstrap.consolePassword} (platform operator)`,
    );
    lines.push(`  Sandbox API key:  ${bootstrap.apiKey}`);
    lines.push(`  (shown once; also in ${where})`);
  } else if (bootstrap) {
    lines.push(`  Console sign-in:  ${bootstrap.consoleEmail} (password in ${where})`);
  } else {
    lines.push("  Bootstrap credentials were printed by the API on its first start.");
  }
  lines.push("  Press Ctrl-C to stop.", "");
  return lines;
}
