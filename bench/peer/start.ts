import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startService } from "../processes";

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface PeerTarget {
  /** The peer issuer (bench/peer/issuer.ts). */
  baseUrl: string;
  /** The peer verifier (bench/peer/verifier.ts), when started. */
  verifierUrl?: string;
}

/** Starts the peer issuer (bench/peer/issuer.ts) as a child process. */
export async function startPeer() {
  const port = await freePort();
  const service = await startService({
    name: "peer",
    args: ["--import", "tsx", path.join(HERE, "issuer.ts")],
    cwd: path.join(HERE, ".."),
    port,
    readyPath: "/health",
    env: { PORT: String(port) },
  });
  return { service, target: { baseUrl: service.baseUrl } as PeerTarget };
}

/** Starts the peer verifier (bench/peer/verifier.ts), pinning the running peer issuer's key. */
export async function startPeerVerifier(issuer: PeerTarget) {
  const port = await freePort();
  const service = await startService({
    name: "peer verifier",
    args: ["--import", "tsx", path.join(HERE, "verifier.ts")],
    cwd: path.join(HERE, ".."),
    port,
    readyPath: "/health",
    env: { PORT: String(port), ISSUER_URL: issuer.baseUrl },
  });
  return { service, target: { ...issuer, verifierUrl: service.baseUrl } as PeerTarget };
}
