import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startService } from "../processes";

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface PeerTarget {
  baseUrl: string;
}

/** Starts the peer issuer (bench/peer/issuer.ts) as a child process. */
export async function startPeer() {
  const port = await freePort();
  const service = await startService({
    name: "peer",
    entry: path.join(HERE, "issuer.ts"),
    cwd: path.join(HERE, ".."),
    port,
    readyPath: "/health",
    env: { PORT: String(port) },
  });
  return { service, target: { baseUrl: service.baseUrl } as PeerTarget };
}
