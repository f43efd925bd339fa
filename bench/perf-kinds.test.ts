// bench/perf-kinds.ts: a perf recording's samples by kind of work.
import { describe, expect, it } from "vitest";
import {
  kindOfSymbol,
  kindsComparison,
  PERF_KINDS,
  type PerfKind,
  parsePerfReport,
  samplesByKind,
  shortSymbol,
  symbolDifferences,
} from "./perf-kinds";

// As `perf report --stdio -n --sort sym` prints them (the header and blank lines are skipped).
const REPORT = `# Samples: 36K of event 'cpu-clock'
#
# Overhead       Samples  Symbol
# ........  ............  ......
#
     2.32%           851  [.] Builtins_LoadIC
     1.04%           382  [.] Builtins_LoadIC_Megamorphic
     0.98%           359  [.] v8::internal::ConcurrentMarking::RunMajor
     0.99%           364  [.] v8::internal::compiler::GraphReducer::ReduceTop
     1.08%           395  [k] _raw_spin_unlock_irqrestore
     0.11%            39  [.] JS:*startSpan file:///x/node_modules/@opentelemetry/sdk-trace/build/src/Tracer.js:41
     0.05%            20  [.] JS:^handler file:///x/apps/api/dist/serve.mjs:10:1
     0.98%           359  [.] JS:wasm-function[923]-923-liftoff
     0.20%            73  [.] Builtins_InterpreterEntryTrampoline
     0.40%           146  [.] Builtins_CallFunction_ReceiverIsAny
     0.30%           110  [.] v8::internal::LookupIterator::LookupInRegularHolder<false>
     0.10%            30  [.] Builtins_LoadIC
`;

const zero = Object.fromEntries(PERF_KINDS.map((kind) => [kind, 0])) as Record<PerfKind, number>;

describe("perf kinds", () => {
  it("names V8's JIT code, builtins and C++ by kind, anything else native", () => {
    const cases: [string, PerfKind][] = [
      ["JS:*startSpan file:///x/Tracer.js:41", "optimised JS"],
      ["JS:^handler file:///x/serve.mjs:10:1", "unoptimised JS"],
      ["JS:~handler file:///x/serve.mjs:10:1", "unoptimised JS"],
      ["JS:wasm-function[923]-923-liftoff", "database (wasm)"],
      ["Builtins_LoadIC", "inline caches"],
      ["Builtins_KeyedLoadIC_Megamorphic", "inline caches"],
      ["Builtins_LoadICTrampoline", "inline caches"],
      ["Builtins_InterpreterEntryTrampoline", "unoptimised JS"],
      ["Builtins_LdaNamedPropertyHandler", "unoptimised JS"],
      ["Builtins_BaselineOutOfLinePrologue", "unoptimised JS"],
      ["Builtins_RecordWriteSaveFP", "garbage collection"],
      ["Builtins_CallFunction_ReceiverIsAny", "other builtins"],
      ["v8::internal::compiler::GraphReducer::ReduceTop", "compiler"],
      ["v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>", "garbage collection"],
      ["v8::internal::ConcurrentMarking::RunMajor", "garbage collection"],
      ["v8::internal::LookupIterator::LookupInRegularHolder<false>", "V8 runtime"],
      ["_int_malloc", "native and kernel"],
      ["_raw_spin_unlock_irqrestore", "native and kernel"],
    ];
    for (const [symbol, kind] of cases) expect([symbol, kindOfSymbol(symbol)]).toEqual([symbol, kind]);
  });

  it("sums a report's samples by symbol and by kind", () => {
    const bySymbol = parsePerfReport(REPORT);
    expect(bySymbol.get("Builtins_LoadIC")).toBe(881);
    expect(bySymbol.size).toBe(11);
    const kinds = samplesByKind(bySymbol);
    expect(kinds["inline caches"]).toBe(881 + 382);
    expect(kinds["garbage collection"]).toBe(359);
    expect(kinds.compiler).toBe(364);
    expect(kinds["optimised JS"]).toBe(39);
    expect(kinds["unoptimised JS"]).toBe(20 + 73);
    expect(kinds["database (wasm)"]).toBe(359);
    expect(kinds["other builtins"]).toBe(146);
    expect(kinds["V8 runtime"]).toBe(110);
    expect(kinds["native and kernel"]).toBe(395);
    expect(PERF_KINDS.reduce((sum, kind) => sum + kinds[kind], 0)).toBe(3128);
  });

  it("compares two settings per server: the whole's ratio and each kind's share of the difference", () => {
    const off = [
      { ...zero, compiler: 100, "optimised JS": 900 },
      { ...zero, compiler: 100, "optimised JS": 1100 },
    ];
    const on = [{ ...zero, compiler: 200, "optimised JS": 1000 }];
    const lines = kindsComparison(off, on, ["off", "on"]);
    expect(lines[0]).toBe("perf samples per server, on / off: 1.091× (1100 → 1200; 2 and 1 servers)");
    expect(lines).toContain("perf, compiler: 100 → 200 (2.00×), 9.1 points of the whole");
    expect(lines).toContain("perf, optimised JS: 1000 → 1000 (1.00×), 0.0 points of the whole");
    expect(lines).toContain("perf, garbage collection: 0 → 0 (–×), 0.0 points of the whole");
    // No database samples: no line relative to them.
    expect(lines.some((line) => line.includes("database's work"))).toBe(false);
  });

  it("divides the whole by the database's ratio, the same statements in both settings", () => {
    const off = [{ ...zero, "database (wasm)": 1000, compiler: 1000 }];
    // A slower machine for "on": the database took 10% more samples for the same statements.
    const on = [{ ...zero, "database (wasm)": 1100, compiler: 1320 }];
    const lines = kindsComparison(off, on, ["off", "on"]);
    expect(lines[0]).toBe("perf samples per server, on / off: 1.210× (2000 → 2420; 1 and 1 servers)");
    expect(lines[1]).toBe(
      "perf samples per server, on / off, per sample of the database's work (the same statements in both): " +
        "1.100× (the database's own ratio 1.100×)",
    );
  });

  it("lists the symbols whose samples per server moved most, up then down, with their kinds", () => {
    const off = [
      new Map([
        ["JS:*handle a.js:1", 100],
        ["Builtins_LoadIC_Megamorphic", 50],
        ["JS:wasm-function[1]", 500],
      ]),
      new Map([
        ["JS:*handle a.js:1", 300],
        ["Builtins_LoadIC_Megamorphic", 50],
        ["JS:wasm-function[1]", 500],
      ]),
    ];
    // One server for "on": its optimised handle ran less, its interpreted tier (absent "off") more.
    const on = [
      new Map([
        ["JS:*handle a.js:1", 150],
        ["JS:~handle a.js:1", 80],
        ["Builtins_LoadIC_Megamorphic", 70],
        ["JS:wasm-function[1]", 500],
      ]),
    ];
    expect(symbolDifferences(off, on, ["off", "on"], 2)).toEqual([
      "perf symbol, on against off: +80 (0 → 80, 10.67 points of the whole) [unoptimised JS] JS:~handle a.js:1",
      "perf symbol, on against off: +20 (50 → 70, 2.67 points of the whole) [inline caches] Builtins_LoadIC_Megamorphic",
      "perf symbol, on against off: -50 (200 → 150, -6.67 points of the whole) [optimised JS] JS:*handle a.js:1",
    ]);
  });

  it("shortens a symbol's paths: a package from its name on, the project's files from the checkout", () => {
    expect(
      shortSymbol(
        "JS:*startSpan /w/node_modules/.pnpm/@opentelemetry+sdk-trace@2.12.0_@opentelemetry+api@1.9.1/" +
          "node_modules/@opentelemetry/sdk-trace/build/src/Tracer.js:41:14",
        "/w",
      ),
    ).toBe("JS:*startSpan @opentelemetry/sdk-trace/build/src/Tracer.js:41:14");
    expect(shortSymbol("JS:*handle file:///w/apps/api/dist/serve.mjs:10:1", "/w")).toBe(
      "JS:*handle apps/api/dist/serve.mjs:10:1",
    );
    expect(shortSymbol("Builtins_LoadIC", "/w")).toBe("Builtins_LoadIC");
    expect(shortSymbol(`JS:~f ${"x".repeat(200)}`, "/w")).toHaveLength(161);
  });
});
