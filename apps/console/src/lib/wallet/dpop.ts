import { base64url, calculateJwkThumbprint } from "jose";
import { type HttpAnswer, send } from "./http";
import { randomToken, signJwt } from "./keys";
import type { StoredKey } from "./store";

/**
 * DPoP (RFC 9449) for one issuance: the wallet's DPoP key, and the latest `DPoP-Nonce` the server handed
 * out (every answer may carry a fresh one). A request refused with `use_dpop_nonce` (400 at the token
 * and PAR endpoints, 401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"` at resource endpoints) is
 * sent once more with the nonce it came with.
 */
export class DpopSession {
  private nonce: string | undefined;

  constructor(readonly key: StoredKey) {}

  thumbprint(): Promise<string> {
    return calculateJwkThumbprint(this.key.publicJwk as never);
  }

  async proof(method: string, url: string, accessToken?: string): Promise<string> {
    const htu = new URL(url);
    htu.search = "";
    htu.hash = "";
    const ath = accessToken
      ? base64url.encode(
          new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken))),
        )
      : undefined;
    return signJwt(
      this.key,
      { typ: "dpop+jwt", jwk: this.key.publicJwk as never },
      {
        jti: randomToken(16),
        htm: method,
        htu: htu.toString(),
        iat: Math.floor(Date.now() / 1000),
        ...(ath ? { ath } : {}),
        ...(this.nonce ? { nonce: this.nonce } : {}),
      },
    );
  }

  /** Remembers a `DPoP-Nonce` from any answer of the issuer (the nonce endpoint's too). */
  remember(answer: HttpAnswer) {
    const nonce = answer.headers.get("dpop-nonce");
    if (nonce) this.nonce = nonce;
  }

  /** Sends with a fresh proof (and `Authorization: DPoP` when there is a token); retries once for a nonce. */
  async send(url: string, init: RequestInit & { method: string }, accessToken?: string) {
    const attempt = async () => {
      const headers = new Headers(init.headers);
      headers.set("DPoP", await this.proof(init.method, url, accessToken));
      if (accessToken) headers.set("authorization", `DPoP ${accessToken}`);
      const answer = await send(url, { ...init, headers });
      this.remember(answer);
      return answer;
    };
    const first = await attempt();
    return needsNonce(first) ? attempt() : first;
  }
}

function needsNonce(answer: HttpAnswer): boolean {
  if (!answer.headers.get("dpop-nonce")) return false;
  const body = answer.body as { error?: unknown } | null;
  if (answer.status === 400 && body && typeof body === "object" && body.error === "use_dpop_nonce")
    return true;
  return answer.status === 401 && /use_dpop_nonce/.test(answer.headers.get("www-authenticate") ?? "");
}
