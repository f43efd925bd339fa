import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Caches } from "@cred/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  listenForOperators,
  OperatorSocketUnavailable,
  operatorSocketPath,
  runThroughApi,
} from "./operator-socket";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "operator-socket-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const log = { info() {}, error() {} };

describe("operator socket", () => {
  it("tells the CLI that nothing listens: no socket, or a file left behind", async () => {
    const socket = operatorSocketPath(dir);
    const tenantsList = { positionals: ["tenants", "list"], options: {} };
    await expect(runThroughApi(socket, tenantsList, "op")).rejects.toBeInstanceOf(OperatorSocketUnavailable);
    fs.writeFileSync(socket, "left behind");
    await expect(runThroughApi(socket, tenantsList, "op")).rejects.toBeInstanceOf(OperatorSocketUnavailable);
  });

  it("replaces a file left behind, listens with mode 0600, answers, and removes the socket on close", async () => {
    const socket = operatorSocketPath(dir);
    fs.writeFileSync(socket, "left behind");
    // A wrong command is refused before any database access: no database needed here.
    const deps = {
      database: {},
      caches: new Caches(),
      secretBox: {},
      keyCustody: { has: () => false },
    } as unknown as Parameters<typeof listenForOperators>[1];
    const listening = await listenForOperators(socket, deps, log);
    try {
      expect(fs.statSync(socket).isSocket()).toBe(true);
      expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
      const answer = await runThroughApi(socket, { positionals: ["tenants", "rename"], options: {} }, "op");
      expect(answer.exitCode, answer.stderr).toBe(2);
      expect(answer.stderr).toMatch(/^Unknown command: tenants rename\n\nUsage:/);
    } finally {
      await listening.close();
    }
    expect(fs.existsSync(socket)).toBe(false);
  });
});
