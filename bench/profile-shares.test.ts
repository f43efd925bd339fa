// bench/profile-shares.ts: a server profile's busy time by area, native frames counted for their caller.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { areaOfSource, profileShares } from "./profile-shares";

const OTEL =
  "file:///x/node_modules/.pnpm/@opentelemetry+otlp-transformer@0.223.0/node_modules/@opentelemetry/otlp-transformer/build/src/x.js";
const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0, columnNumber: 0, scriptId: "0" },
  children,
});

describe("profile shares", () => {
  it("names the areas by source file", () => {
    expect(areaOfSource(OTEL)).toBe("opentelemetry");
    expect(areaOfSource("file:///x/node_modules/prom-client/lib/counter.js")).toBe("prom-client");
    expect(areaOfSource("../../src/tracing/trace-scope.ts".replace("../../", "/r/apps/api/"))).toBe(
      "server tracing code",
    );
    expect(areaOfSource("/r/packages/db/src/traced-unit-of-work.ts")).toBe("server tracing code");
    expect(areaOfSource("/r/apps/api/src/metrics/server-metrics.ts")).toBe("server metrics code");
    expect(areaOfSource("/r/apps/api/src/wallet/token.ts")).toBe("other");
  });

  it("counts busy time only, a native frame for its caller, and the garbage collector apart", () => {
    const profile = {
      nodes: [
        frame(1, "(root)", "", [2, 3, 4, 6, 7]),
        frame(2, "(idle)", ""),
        frame(3, "(garbage collector)", ""),
        frame(4, "writeString", OTEL, [5]),
        frame(5, "utf8Write", ""),
        frame(6, "handler", "file:///r/apps/api/src/wallet/token.js"),
        frame(7, "Module._load", "node:internal/modules/cjs/loader", [8]),
        frame(8, "(anonymous)", OTEL),
      ],
      // idle 5 ms (left out), GC 1 ms, the serialiser 1 ms itself and 2 ms in its native call, 4 ms other,
      // 2 ms loading an OpenTelemetry module (start-up, not OpenTelemetry's running cost).
      samples: [2, 3, 4, 5, 5, 6, 6, 6, 6, 8, 8],
      timeDeltas: [5000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shares-"));
    const file = path.join(dir, "a.cpuprofile");
    fs.writeFileSync(file, JSON.stringify(profile));
    const shares = profileShares([file]);
    expect(shares.busyMs).toBe(10);
    expect(shares.ms).toMatchObject({
      opentelemetry: 3,
      "garbage collection": 1,
      "module loading": 2,
      other: 4,
    });
    expect(shares.share.opentelemetry).toBeCloseTo(0.3);
  });
});
