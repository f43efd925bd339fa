// Where a server's CPU profile spends its time, by area: OpenTelemetry, prom-client, the server's own tracing and
// metrics code, garbage collection, everything else. Used to judge the cost of observability on a machine too
// busy for `pnpm bench --observability`'s wall-clock ratios: the share of the profile's busy time in each area
// does not depend on how fast the machine was at the time.
//
//   tsx bench/profile-shares.ts <dir-with-.cpuprofile> [<dir> ...]
//
// Samples below Node's module loader are start-up work, an area of their own. Any other sample is
// charged to the nearest frame from its leaf that has a script of its own (native frames, Node's
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
  | "module loading"
  | "other";

export const AREAS: Area[] = [
  "opentelemetry",
  "prom-client",
  "server tracing code",
  "server metrics code",
  "garbage collection",
  "module loading",
  "other",
];

/** Frames of Node's CommonJS loader: a sample below one is start-up work (the SDK loads ~0.4 s of modules). */
const LOADING = new Set(["Module._load", "Module._compile", "wrapSafe", "compileFunction"]);

const sourceMaps = new Map<string, { map: SourceMap; dir: string } | null>();

function sourceMapOf(url: string) {
  let found = sourceMaps.get(url);
  if (found !== undefined) return found;
  found = null;
  try {
    const file = url.startsWith("file:") ? fileURLToPath(url) : url;
    if (file.endsWith(".mjs") && fs.existsSync(`${file}.map`)) {
      const map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, "utf8")));
      found = { map, dir: path.dirname(file) };
    }
  } catch {
    found = null;
  }
  sourceMaps.set(url, found);
  return found;
}

/** The source file a frame's code came from (through the bundle's source map), or its script's URL. */
function sourceOf(frame: CallFrame): string {
  const found = sourceMapOf(frame.url);
  if (!found) return frame.url;
  const entry = found.map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
  // The bundle's map names its sources relative to the bundle's folder (../src/tracing/…).
  return entry.originalSource ? path.resolve(found.dir, entry.originalSource) : frame.url;
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
    const loading = (id: number) => {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
        if (LOADING.has(nodes.get(at)!.callFrame.functionName)) return true;
      return false;
    };
    const classify = (id: number): Area | "idle" => {
      const known = areaOfNode.get(id);
      if (known) return known;
      const leaf = nodes.get(id)!.callFrame;
      let area: Area | "idle";
      if (leaf.functionName === "(idle)") area = "idle";
      else if (leaf.functionName === "(garbage collector)") area = "garbage collection";
      else if (loading(id)) area = "module loading";
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
