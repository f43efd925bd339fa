import { describe, expect, it } from "vitest";
import { forwardedFor, nextEnv } from "./next-env.mjs";

describe("nextEnv", () => {
  it("builds and serves in production mode whatever NODE_ENV the caller exported", () => {
    for (const NODE_ENV of ["development", "test", "production", undefined]) {
      const env = nextEnv({ NODE_ENV, PATH: "/usr/bin", API_ORIGIN: "http://127.0.0.1:3000" }, "production");
      expect(env).toEqual({
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        PATH: "/usr/bin",
        API_ORIGIN: "http://127.0.0.1:3000",
      });
    }
  });

  it("runs next dev in development mode, and leaves the caller's environment alone", () => {
    const caller = { NODE_ENV: "production" };
    expect(nextEnv(caller, "development").NODE_ENV).toBe("development");
    expect(caller.NODE_ENV).toBe("production");
  });
});

describe("forwardedFor", () => {
  it("appends the connection's address to what the client sent", () => {
    expect(forwardedFor(undefined, "203.0.113.5")).toBe("203.0.113.5");
    expect(forwardedFor("198.51.100.1", "127.0.0.1")).toBe("198.51.100.1, 127.0.0.1");
    expect(forwardedFor(["198.51.100.1", "198.51.100.2"], "::1")).toBe("198.51.100.1, 198.51.100.2, ::1");
  });

  it("keeps what it has when the address is unknown", () => {
    expect(forwardedFor(" 198.51.100.1 ", undefined)).toBe("198.51.100.1");
    expect(forwardedFor(undefined, undefined)).toBeUndefined();
  });
});
