// Where a server's CPU profile spends its time, by area: OpenTelemetry, prom-client, the server's own tracing and
// metrics code, garbage collection, everything else. Used to judge the cost of observability on a machine too
// busy for `pnpm bench --observability`'s wall-clock ratios: the share of the profile's busy time in each area
// does not depend on how fast the machine was at the time.
//
//   tsx bench/profile-shares.ts <dir-with-.cpuprofile> [<dir> ...]
//
// A sample is charged to the nearest frame from its leaf that has a script of its own (native frames, Node's
// internals and V8 builtins count for their caller), so a Buffer or TextEncoder call made by the OTLP
// serialiser counts for OpenTelemetry. Bundled frames (apps/api/dist/*.mjs) are mapped back to their source
// files through the bundle's source map, so apps/api/src/tracing/ and apps/api/src/metrics/ show apart.
import fs from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export type Area =
  | "opentelemetry"
  | "prom-client"
  | "server tracing code"
  | "server metrics code"
  | "garbage collection"
  | "other";

export const AREAS: Area[] = [
  "opentelemetry",
  "prom-client",
  "server tracing code",
  "server metrics code",
  "garbage collection",
  "other",
];

const sourceMaps = new Map<string, SourceMap | null>();

function sourceMapOf(url: string): SourceMap | null {
  let map = sourceMaps.get(url);
  if (map !== undefined) return map;
  map = null;
  try {
    const file = url.startsWith("file:") ? fileURLToPath(url) : url;
    if (file.endsWith(".mjs") && fs.existsSync(`${file}.map`))
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, "utf8")));
  } catch {
    map = null;
  }
  sourceMaps.set(url, map);
  return map;
}

/** The source file a frame's code came from (through the bundle's source map), or its script's URL. */
function sourceOf(frame: CallFrame): string {
  const map = sourceMapOf(frame.url);
  if (!map) return frame.url;
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
  return entry.originalSource ?? frame.url;
}

/** Frames that count for their caller: no script, or Node's own. */
const isNative = (frame: CallFrame) => frame.url === "" || frame.url.startsWith("node:");

export function areaOfSource(source: string): Area {
  if (source.includes("@opentelemetry")) return "opentelemetry";
  if (source.includes("prom-client")) return "prom-client";
  if (/apps\/api\/src\/tracing\/|packages\/db\/src\/traced-unit-of-work/.test(source))
    return "server tracing code";
  if (/apps\/api\/src\/metrics\//.test(source)) return "server metrics code";
  return "other";
}

export interface Shares {
  files: number;
  /** Busy time: every sample but `(idle)`, in ms. */
  busyMs: number;
  ms: Record<Area, number>;
  share: Record<Area, number>;
}

export function profileShares(files: string[]): Shares {
  const ms = Object.fromEntries(AREAS.map((a) => [a, 0])) as Record<Area, number>;
  let busyMs = 0;
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const areaOfNode = new Map<number, Area | "idle">();
    const classify = (id: number): Area | "idle" => {
      const known = areaOfNode.get(id);
      if (known) return known;
      const leaf = nodes.get(id)!.callFrame;
      let area: Area | "idle";
      if (leaf.functionName === "(idle)") area = "idle";
      else if (leaf.functionName === "(garbage collector)") area = "garbage collection";
      else {
        let at: number | undefined = id;
        while (at !== undefined && isNative(nodes.get(at)!.callFrame)) at = parent.get(at);
        area = at === undefined ? "other" : areaOfSource(sourceOf(nodes.get(at)!.callFrame));
      }
      areaOfNode.set(id, area);
      return area;
    };
    profile.samples.forEach((id, i) => {
      const area = classify(id);
      if (area === "idle") return;
      const sampleMs = (profile.timeDeltas[i] ?? 0) / 1000;
      busyMs += sampleMs;
      ms[area] += sampleMs;
    });
  }
  const share = Object.fromEntries(AREAS.map((a) => [a, busyMs ? ms[a] / busyMs : 0])) as Record<
    Area,
    number
  >;
  return { files: files.length, busyMs, ms, share };
}

const profilesIn = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => path.join(dir, f));

if (process.argv[1]?.endsWith("profile-shares.ts")) {
  for (const dir of process.argv.slice(2)) {
    const shares = profileShares(profilesIn(dir));
    const cells = AREAS.map((a) => `${a} ${(shares.share[a] * 100).toFixed(1)}%`);
    process.stdout.write(
      `${path.basename(dir)}: busy ${Math.round(shares.busyMs)} ms; ${cells.join(", ")}\n`,
    );
  }
}
