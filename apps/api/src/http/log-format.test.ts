import { PassThrough } from "node:stream";
import pino from "pino";
import pretty from "pino-pretty";
import { describe, expect, it } from "vitest";
import { readEnv } from "../env";
import { EnvError } from "../startup-errors";
import { chooseLogFormat, prettyMessage, prettyOptions } from "./log-format";

describe("log format choice", () => {
  it("pretty only on a terminal in development mode; JSON otherwise", () => {
    const cases = [
      { developmentMode: true, stdoutIsTerminal: true, expected: "pretty" },
      { developmentMode: true, stdoutIsTerminal: false, expected: "json" },
      { developmentMode: false, stdoutIsTerminal: true, expected: "json" },
      { developmentMode: false, stdoutIsTerminal: false, expected: "json" },
    ] as const;
    for (const { expected, ...input } of cases) {
      expect(chooseLogFormat({ requested: undefined, ...input }), JSON.stringify(input)).toBe(expected);
    }
  });

  it("LOG_FORMAT decides when set, whatever the mode and terminal", () => {
    expect(chooseLogFormat({ requested: "json", developmentMode: true, stdoutIsTerminal: true })).toBe(
      "json",
    );
    expect(chooseLogFormat({ requested: "pretty", developmentMode: false, stdoutIsTerminal: false })).toBe(
      "pretty",
    );
  });

  it("LOG_FORMAT is read, and anything but json or pretty is refused", () => {
    expect(readEnv({}).logFormat).toBeUndefined();
    expect(readEnv({ LOG_FORMAT: "pretty" }).logFormat).toBe("pretty");
    expect(readEnv({ LOG_FORMAT: " json " }).logFormat).toBe("json");
    expect(() => readEnv({ LOG_FORMAT: "yaml" })).toThrow(EnvError);
    try {
      readEnv({ LOG_FORMAT: "yaml" });
    } catch (error) {
      expect((error as EnvError).problems).toEqual(['LOG_FORMAT must be json or pretty (got "yaml").']);
    }
  });
});

describe("pretty log lines", () => {
  it("the access line reads as method, route, status and time; other messages stay as they are", () => {
    const access = { msg: "request", method: "POST", route: "/issuers/:issuerId/token", status: 400, ms: 12 };
    expect(prettyMessage(access, "msg")).toBe("POST /issuers/:issuerId/token 400 ! 12 ms");
    expect(prettyMessage({ ...access, status: 200 }, "msg")).toBe("POST /issuers/:issuerId/token 200 12 ms");
    expect(prettyMessage({ ...access, route: undefined, status: 404 }, "msg")).toBe(
      "POST (no route) 404 ! 12 ms",
    );
    expect(prettyMessage({ msg: "shutting down", signal: "SIGTERM" }, "msg")).toBe("shutting down");
  });

  it("renders one short line per entry, without pid, hostname, request id or the access fields", () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c: Buffer) => {
      text += c.toString("utf8");
    });
    const logger = pino(pretty({ ...prettyOptions(false), destination: out }));
    logger
      .child({ requestId: "3f0c…" })
      .info({ method: "GET", route: "/v1.0/issuers", status: 200, ms: 3, clientRequestId: "abc" }, "request");
    logger.warn({ issuerId: "x" }, "something odd");
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/v1\.0\/issuers 200 3 ms \{"clientRequestId":"abc"\}$/,
    );
    expect(lines[1]).toMatch(/WARN: something odd \{"issuerId":"x"\}$/);
    expect(text).not.toMatch(/pid|hostname|requestId/);
  });
});
