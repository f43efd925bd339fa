import { describe, expect, it } from "vitest";
import { CONSOLE_TRPC_PREFIX } from "../console/mount-console";
import { quietInPrettyLog } from "./log-format";

/** Pretty logs (a terminal in development) leave out what would scroll the start banner away. */
describe("quietInPrettyLog", () => {
  const trpc = `${CONSOLE_TRPC_PREFIX}/*`;

  it("leaves out probes, scrapes and the console's successful reads (its polling)", () => {
    for (const route of ["/healthz", "/readyz", "/metrics"])
      expect(quietInPrettyLog({ method: "GET", route, status: 200 })).toBe(true);
    expect(quietInPrettyLog({ method: "GET", route: trpc, status: 200 })).toBe(true);
    expect(quietInPrettyLog({ method: "GET", route: trpc, status: 304 })).toBe(true);
  });

  it("keeps the console's changes and failures, and every REST and wallet call", () => {
    expect(quietInPrettyLog({ method: "POST", route: trpc, status: 200 })).toBe(false);
    expect(quietInPrettyLog({ method: "GET", route: trpc, status: 401 })).toBe(false);
    expect(quietInPrettyLog({ method: "GET", route: trpc, status: 500 })).toBe(false);
    expect(quietInPrettyLog({ method: "GET", route: "/management/organisations", status: 200 })).toBe(false);
    expect(quietInPrettyLog({ method: "POST", route: "/issuers/:issuerId/token", status: 200 })).toBe(false);
    expect(quietInPrettyLog({ method: "GET", route: undefined, status: 404 })).toBe(false);
  });
});
