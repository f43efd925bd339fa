import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { REDACTED_PATHS } from "./server";

/** A logger redacting as the server's does, and what it has written so far. */
function capturedLogger() {
  const captured = { out: "" };
  const sink = new Writable({
    write(chunk, _encoding, done) {
      captured.out += chunk.toString();
      done();
    },
  });
  return { log: pino({ redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, sink), captured };
}

describe("log redaction", () => {
  it("redacts secret fields at the top level and two levels down, and the auth headers", () => {
    const { log, captured } = capturedLogger();
    log.info(
      {
        apiKey: "S1",
        deep: { inner: { password: "S2" } },
        body: { "pre-authorized_code": "S3", tx_code: "S4" },
        req: { headers: { authorization: "ApiKey S5", cookie: "cp_session=S6" } },
        masterKey: "S7",
        kept: "visible",
      },
      "line",
    );
    for (const secret of ["S1", "S2", "S3", "S4", "S5", "S6", "S7"])
      expect(captured.out).not.toContain(secret);
    expect(captured.out).toContain("visible");
  });

  // Child bindings go through the redactor too; primitives take a shortcut (patches/@pinojs__redact*).
  it("redacts secrets bound to a child logger and keeps its plain bindings", () => {
    const { log, captured } = capturedLogger();
    log
      .child({ requestId: "req-1", count: 3, flag: null, apiKey: "S1", nested: { secret: "S2" } })
      .info({ note: "plain" }, "line");
    const line = JSON.parse(captured.out) as Record<string, unknown>;
    expect(line).toMatchObject({ requestId: "req-1", count: 3, flag: null, note: "plain" });
    expect(line.apiKey).toBe("[redacted]");
    expect(line.nested).toEqual({ secret: "[redacted]" });
  });
});
