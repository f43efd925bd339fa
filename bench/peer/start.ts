import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startService } from "../processes";

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface PeerTarget {
  /** The peer's credential issuer identifier: its token, nonce and credential endpoints are under it. */
  baseUrl: string;
  /** Where the harness's own routes (POST /transactions) are, when not at `baseUrl` (the Credo peer). */
  controlUrl?: string;
  /** The peer verifier's harness routes (POST /sessions, GET /sessions/:id), when started. */
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

/** Starts the Credo peer issuer (bench/peer/credo/issuer.ts) as a child process. */
export async function startCredoPeer() {
  const port = await freePort();
  const service = await startService({
    name: "credo peer",
    args: ["--import", "tsx", path.join(HERE, "credo", "issuer.ts")],
    cwd: path.join(HERE, ".."),
    port,
    readyPath: "/health",
    env: { PORT: String(port) },
  });
  try {
    const { issuerUrl } = (await (await fetch(`${service.baseUrl}/certificate`)).json()) as {
      issuerUrl: string;
    };
    return { service, target: { baseUrl: issuerUrl, controlUrl: service.baseUrl } as PeerTarget };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

/** Starts the Credo peer verifier (bench/peer/credo/verifier.ts), trusting the running Credo issuer's certificate. */
export async function startCredoPeerVerifier(issuer: PeerTarget) {
  const port = await freePort();
  const service = await startService({
    name: "credo peer verifier",
    args: ["--import", "tsx", path.join(HERE, "credo", "verifier.ts")],
    cwd: path.join(HERE, ".."),
    port,
    readyPath: "/health",
    env: { PORT: String(port), ISSUER_CONTROL_URL: issuer.controlUrl ?? issuer.baseUrl },
  });
  return { service, target: { ...issuer, verifierUrl: service.baseUrl } as PeerTarget };
}
