// pnpm bench's choice of peers on the command line.
import { describe, expect, it } from "vitest";
import { parseArgs } from "./args";

describe("parseArgs --peer", () => {
  it("runs both peers by default, the library peer first", () => {
    expect(parseArgs([]).peers).toEqual(["library", "credo"]);
    expect(parseArgs(["--smoke"]).peers).toEqual(["library", "credo"]);
  });

  it("runs one peer, both or none as asked", () => {
    expect(parseArgs(["--peer", "credo"]).peers).toEqual(["credo"]);
    expect(parseArgs(["--peer", "library"]).peers).toEqual(["library"]);
    expect(parseArgs(["--peer", "all"]).peers).toEqual(["library", "credo"]);
    expect(parseArgs(["--peer", "none"]).peers).toEqual([]);
    expect(parseArgs(["--peer", "credo", "--no-peer"]).peers).toEqual([]);
  });

  it("refuses an unknown peer or a missing value", () => {
    expect(() => parseArgs(["--peer", "eudiplo"])).toThrow(/--peer is library, credo, all or none/);
    expect(() => parseArgs(["--peer"])).toThrow(/--peer needs a value/);
  });

  it("records perf only in the alternated runs", () => {
    expect(parseArgs(["--observability", "--perf"]).perf).toBe(true);
    expect(parseArgs(["--keys", "pkcs11", "--perf"]).perf).toBe(true);
    expect(parseArgs([]).perf).toBe(false);
    expect(() => parseArgs(["--perf"])).toThrow(/--perf is for the alternated runs/);
  });
});
