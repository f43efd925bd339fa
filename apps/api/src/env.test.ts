import { DEFAULT_DELIVERY_OPTIONS } from "@cred/core";
import { describe, expect, it } from "vitest";
import { loadMasterKeys, readEnv, webhookSettings } from "./env";
import { envProblems as problems } from "./env-problems";
import { EnvError } from "./startup-errors";

describe("webhook worker settings from the environment", () => {
  it("unset or empty: nothing is overridden, so the built-in defaults apply", () => {
    for (const source of [{}, { WEBHOOK_POLL_INTERVAL_MS: "", WEBHOOK_MAX_ATTEMPTS: " " }]) {
      const env = readEnv(source);
      expect(env.webhookWorker).toEqual({});
      expect(webhookSettings(env)).toEqual({ workerOptions: { delivery: {} }, config: {} });
    }
    // Unset keys are absent, not undefined: a spread over the defaults would erase them.
    const { workerOptions } = webhookSettings(readEnv({}));
    expect(Object.keys(workerOptions)).toEqual(["delivery"]);
    expect(Object.keys(workerOptions.delivery ?? {})).toEqual([]);
  });

  it("reads each variable into the worker options and the core configuration", () => {
    const env = readEnv({
      WEBHOOK_POLL_INTERVAL_MS: "250",
      WEBHOOK_SWEEP_INTERVAL_MS: "300000",
      WEBHOOK_TIMEOUT_MS: "5000",
      WEBHOOK_MAX_ATTEMPTS: "4",
      WEBHOOK_DELIVERY_RETENTION_DAYS: " 90 ",
      WEBHOOK_CONCURRENCY: "64",
    });
    expect(env.webhookWorker).toEqual({
      pollIntervalMs: 250,
      sweepIntervalMs: 300_000,
      timeoutMs: 5000,
      maxAttempts: 4,
      deliveryRetentionDays: 90,
      concurrency: 64,
    });
    expect(webhookSettings(env)).toEqual({
      workerOptions: {
        pollIntervalMs: 250,
        sweepIntervalMs: 300_000,
        concurrency: 64,
        delivery: {
          attemptTimeoutMs: 5000,
          retryScheduleMs: DEFAULT_DELIVERY_OPTIONS.retryScheduleMs.slice(0, 3),
        },
      },
      config: { webhookDeliveryRetentionDays: 90 },
    });
  });

  it("one variable alone overrides only its own setting", () => {
    expect(webhookSettings(readEnv({ WEBHOOK_TIMEOUT_MS: "15000" }))).toEqual({
      workerOptions: { delivery: { attemptTimeoutMs: 15_000 } },
      config: {},
    });
    expect(webhookSettings(readEnv({ WEBHOOK_MAX_ATTEMPTS: "1" })).workerOptions.delivery).toEqual({
      retryScheduleMs: [],
    });
  });

  it("accepts each limit and refuses one more", () => {
    const limits = {
      WEBHOOK_POLL_INTERVAL_MS: 60_000,
      WEBHOOK_SWEEP_INTERVAL_MS: 86_400_000,
      WEBHOOK_TIMEOUT_MS: 30_000,
      WEBHOOK_MAX_ATTEMPTS: 50,
      WEBHOOK_DELIVERY_RETENTION_DAYS: 3650,
      WEBHOOK_CONCURRENCY: 256,
    };
    for (const [name, max] of Object.entries(limits)) {
      expect(() => readEnv({ [name]: String(max) })).not.toThrow();
      expect(problems({ [name]: String(max + 1) })).toEqual([
        `${name} must be a whole number from 1 to ${max} (got "${max + 1}").`,
      ]);
    }
  });

  it("refuses anything but a positive whole number, naming every bad variable at once", () => {
    for (const bad of ["0", "-5", "1.5", "abc", "1e3", "10s", "0x10", "+3"]) {
      expect(problems({ WEBHOOK_POLL_INTERVAL_MS: bad })).toEqual([
        `WEBHOOK_POLL_INTERVAL_MS must be a whole number from 1 to 60000 (got "${bad}").`,
      ]);
    }
    const all = problems({
      WEBHOOK_TIMEOUT_MS: "0",
      WEBHOOK_MAX_ATTEMPTS: "many",
      WEBHOOK_DELIVERY_RETENTION_DAYS: "-1",
      PORT: "http",
    });
    expect(all.map((p) => p.split(" ")[0])).toEqual([
      "PORT",
      "WEBHOOK_TIMEOUT_MS",
      "WEBHOOK_MAX_ATTEMPTS",
      "WEBHOOK_DELIVERY_RETENTION_DAYS",
    ]);
    expect(() => readEnv({ WEBHOOK_TIMEOUT_MS: "0", PORT: "http" })).toThrow(
      [
        "Invalid environment:",
        '  PORT must be a non-negative integer (got "http").',
        '  WEBHOOK_TIMEOUT_MS must be a whole number from 1 to 30000 (got "0").',
      ].join("\n"),
    );
  });
});

describe("the embedded database's buffer pool from the environment", () => {
  it("EMBEDDED_SHARED_BUFFERS_MB: unset keeps the default; 8 to 1024 MB are taken; anything else is refused", () => {
    expect(readEnv({}).embeddedSharedBuffersMb).toBeUndefined();
    expect(readEnv({ EMBEDDED_SHARED_BUFFERS_MB: "64" }).embeddedSharedBuffersMb).toBe(64);
    expect(readEnv({ EMBEDDED_SHARED_BUFFERS_MB: "8" }).embeddedSharedBuffersMb).toBe(8);
    for (const bad of ["4", "0", "2048", "16MB", "1.5"]) {
      expect(problems({ EMBEDDED_SHARED_BUFFERS_MB: bad })).toEqual([
        `EMBEDDED_SHARED_BUFFERS_MB must be a whole number from 8 to 1024 (got "${bad}").`,
      ]);
    }
  });
});

describe("PUBLIC_BASE_URL", () => {
  it("takes an origin, dropping a trailing slash", () => {
    expect(readEnv({ PUBLIC_BASE_URL: "https://credentials.example.com/" }).publicBaseUrl).toBe(
      "https://credentials.example.com",
    );
    expect(readEnv({ PUBLIC_BASE_URL: "http://localhost:3000" }).publicBaseUrl).toBe("http://localhost:3000");
    expect(readEnv({}).publicBaseUrl).toBeUndefined();
  });

  it("refuses a path (its identifiers' well-known documents would not be served), query, credentials or junk", () => {
    for (const value of [
      "https://example.com/vc",
      "https://example.com/?a=1",
      "https://example.com/#x",
      "https://user:pw@example.com",
      "ftp://example.com",
      "example.com",
    ]) {
      expect(problems({ PUBLIC_BASE_URL: value }), value).toEqual([
        expect.stringContaining("PUBLIC_BASE_URL"),
      ]);
    }
  });
});

describe("a production start", () => {
  it("needs an https PUBLIC_BASE_URL (no localhost default) outside development mode", () => {
    for (const source of [{}, { PUBLIC_BASE_URL: "http://credentials.example.com" }] as Record<
      string,
      string
    >[]) {
      expect(problems({ NODE_ENV: "production", ...source })).toEqual([
        expect.stringMatching(/^PUBLIC_BASE_URL must be set to the service's https origin/),
      ]);
    }
    expect(readEnv({ NODE_ENV: "production", PUBLIC_BASE_URL: "https://c.example.com" }).publicBaseUrl).toBe(
      "https://c.example.com",
    );
    expect(readEnv({ NODE_ENV: "production", DEVELOPMENT_MODE: "true" }).publicBaseUrl).toBeUndefined();
  });
});

describe("LOG_LEVEL", () => {
  it("is one of pino's levels, or the start stops naming it", () => {
    expect(readEnv({ LOG_LEVEL: "debug" }).logLevel).toBe("debug");
    expect(problems({ LOG_LEVEL: "verbose" })).toEqual([expect.stringMatching(/^LOG_LEVEL must be one of/)]);
  });
});

describe("TRUST_PROXY", () => {
  it("trusts loopback (the console's proxy) unless told otherwise; none trusts no proxy", () => {
    expect(readEnv({}).trustProxy).toEqual(["loopback"]);
    expect(readEnv({ TRUST_PROXY: "loopback, 10.0.0.0/8" }).trustProxy).toEqual(["loopback", "10.0.0.0/8"]);
    expect(readEnv({ TRUST_PROXY: "none" }).trustProxy).toEqual([]);
  });

  it("stops the start naming an entry it cannot read", () => {
    expect(problems({ TRUST_PROXY: "loopback,proxy.internal" })).toEqual([
      expect.stringMatching(/^TRUST_PROXY must list .*cannot read "proxy\.internal"/),
    ]);
  });
});

describe("DATABASE_URL", () => {
  it("is a postgres:// URL when set", () => {
    expect(readEnv({ DATABASE_URL: "postgres://u:p@db:5432/x" }).databaseUrl).toBe(
      "postgres://u:p@db:5432/x",
    );
    expect(readEnv({ DATABASE_URL: "postgresql://db/x" }).databaseUrl).toBe("postgresql://db/x");
    expect(problems({ DATABASE_URL: "notaurl" })).toEqual([expect.stringMatching(/^DATABASE_URL must be/)]);
  });
});

describe("MASTER_KEY and PREVIOUS_MASTER_KEYS", () => {
  const key = (byte: number) => Buffer.alloc(32, byte).toString("base64");
  it("reads the replaced keys of a rotation, comma-separated, next to the current one", () => {
    const env = readEnv({ MASTER_KEY: key(1), PREVIOUS_MASTER_KEYS: `${key(2)}, ${key(3)}` });
    const keys = loadMasterKeys(env);
    expect(keys.masterKey).toEqual(Buffer.alloc(32, 1));
    expect(keys.previousMasterKeys).toEqual([Buffer.alloc(32, 2), Buffer.alloc(32, 3)]);
    expect(loadMasterKeys(readEnv({ MASTER_KEY: key(1) })).previousMasterKeys).toEqual([]);
  });

  it("refuses a previous key that is not 32 bytes, naming which entry", () => {
    const env = readEnv({ MASTER_KEY: key(1), PREVIOUS_MASTER_KEYS: `${key(2)},c2hvcnQ=` });
    expect(() => loadMasterKeys(env)).toThrow(EnvError);
    expect(() => loadMasterKeys(env)).toThrow(/PREVIOUS_MASTER_KEYS entry 2 must be 32 bytes/);
  });
});
