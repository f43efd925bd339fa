import { describe, expect, it } from "vitest";
import { startBanner } from "./start-banner.mjs";

const base = {
  consoleUp: true,
  consoleExit: undefined,
  consoleUrl: "http://localhost:3001",
  apiUrl: "http://localhost:3000",
  where: ".data/bootstrap.json",
};
const bootstrap = { consoleEmail: "admin@localhost", consolePassword: "pw-123", apiKey: "ak_abc_secret" };

describe("pnpm start's banner", () => {
  it("on first start: where to go, then the login and the API key, and the way to stop last", () => {
    const lines = startBanner({ ...base, bootstrap, firstStart: true });
    expect(lines).toEqual([
      "",
      "Ready.",
      "  Console:  http://localhost:3001",
      "  API:      http://localhost:3000   (reference: http://localhost:3000/docs)",
      "  Console sign-in:  admin@localhost / pw-123 (platform operator)",
      "  Sandbox API key:  ak_abc_secret",
      "  (shown once; also in .data/bootstrap.json)",
      "  Press Ctrl-C to stop.",
      "",
    ]);
  });

  it("on later starts names the file instead of repeating the secrets", () => {
    const text = startBanner({ ...base, bootstrap, firstStart: false }).join("\n");
    expect(text).toContain("Console sign-in:  admin@localhost (password in .data/bootstrap.json)");
    expect(text).not.toContain("pw-123");
    expect(text).not.toContain("ak_abc_secret");
    expect(startBanner({ ...base, bootstrap: null, firstStart: false }).join("\n")).toContain(
      "Bootstrap credentials were printed by the API on its first start.",
    );
  });

  it("says when the console is not running and why", () => {
    const lines = startBanner({
      ...base,
      consoleUp: false,
      consoleExit: "exit 1",
      bootstrap,
      firstStart: true,
    });
    expect(lines[1]).toBe("Ready, without the console.");
    expect(lines[2]).toBe("  Console:  not running (exit 1; see its output above)");
  });
});
