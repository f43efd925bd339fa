// Summarises V8 .cpuprofile files of the server: self time by function and by package.
import fs from "node:fs";
import path from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function packageOf(url: string): string {
  if (!url) return "(native/V8)";
  const m =
    /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url) ??
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  const repo = /\/(packages|apps)\/([^/]+)\//.exec(url);
  if (repo) return `@cred/${repo[2]}`;
  if (url.startsWith("node:")) return "node:internal";
  return path.basename(url);
}

export function summariseProfiles(dir: string) {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")) : [];
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Profile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const node = nodes.get(id)!;
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      total += ms;
      const { functionName, url, lineNumber } = node.callFrame;
      const fn =
        `${functionName || "(anonymous)"} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ""}`.trim();
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
      byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + ms);
    });
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), share: total ? +(ms / total).toFixed(3) : 0 }));
  return {
    dir,
    files,
    totalMs: Math.round(total),
    byPackage: top(byPackage, 25),
    byFunction: top(byFunction, 40),
  };
}

if (process.argv[1]?.endsWith("profile-summary.ts") && process.argv[2]) {
  process.stdout.write(`${JSON.stringify(summariseProfiles(process.argv[2]), null, 2)}\n`);
}
