import { SDJwtInstance } from "@sd-jwt/core";
import { decodeSdJwt, getClaims } from "@sd-jwt/decode";
import { sdJwtSigner, sha256Hasher } from "./keys";
import type { StoredKey } from "./store";

export type ClaimPath = (string | number | null)[];

export interface DecodedCredential {
  header: Record<string, unknown>;
  /** The issuer-signed payload as sent (with `_sd` digests). */
  payload: Record<string, unknown>;
  /** Every claim, disclosures applied (what the holder can show). */
  claims: Record<string, unknown>;
  /** How many disclosures the credential carries. */
  disclosureCount: number;
}

/** Decodes an SD-JWT VC and applies its disclosures (digests checked by `@sd-jwt/decode`). */
export async function decodeCredential(compact: string): Promise<DecodedCredential> {
  const decoded = await decodeSdJwt(compact, sha256Hasher);
  const payload = decoded.jwt.payload as Record<string, unknown>;
  const claims = await getClaims<Record<string, unknown>>(payload, decoded.disclosures, sha256Hasher);
  return {
    header: decoded.jwt.header as Record<string, unknown>,
    payload,
    claims,
    disclosureCount: decoded.disclosures.length,
  };
}

/** Registered JWT and SD-JWT VC members, shown apart from the subject's claims. */
const TECHNICAL = new Set([
  "iss",
  "iat",
  "nbf",
  "exp",
  "vct",
  "vct#integrity",
  "cnf",
  "status",
  "_sd_alg",
  "sub",
]);

export function subjectClaims(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([name]) => !TECHNICAL.has(name)));
}

/** The value at a DCQL claims path (`null` selects every array element); undefined when absent. */
export function valueAt(claims: unknown, path: ClaimPath): unknown[] {
  let current: unknown[] = [claims];
  for (const segment of path) {
    const next: unknown[] = [];
    for (const node of current) {
      if (segment === null) {
        if (Array.isArray(node)) next.push(...node);
      } else if (typeof segment === "number") {
        if (Array.isArray(node) && segment < node.length) next.push(node[segment]);
      } else if (node && typeof node === "object" && !Array.isArray(node) && segment in node) {
        next.push((node as Record<string, unknown>)[segment]);
      }
    }
    current = next;
  }
  return current;
}

type Frame = { [key: string]: boolean | Frame };

/** `@sd-jwt` presentation frame disclosing exactly the given claim paths (and what they sit in). */
export function presentationFrame(claims: Record<string, unknown>, paths: ClaimPath[]): Frame {
  const frame: Frame = {};
  const add = (target: Frame, node: unknown, path: ClaimPath) => {
    const [segment, ...rest] = path;
    if (segment === undefined) return;
    const keys =
      segment === null ? (Array.isArray(node) ? node.map((_, i) => String(i)) : []) : [String(segment)];
    for (const key of keys) {
      const child = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
      if (rest.length === 0) {
        target[key] = true;
      } else {
        const existing = target[key];
        const sub: Frame = typeof existing === "object" ? existing : {};
        target[key] = sub;
        add(sub, child, rest);
      }
    }
  };
  for (const path of paths) add(frame, claims, path);
  return frame;
}

/**
 * The SD-JWT presentation: the chosen disclosures and a KB-JWT (`typ: kb+jwt`; `iat`, `aud`, `nonce`,
 * `sd_hash` over the presented SD-JWT, and `transaction_data_hashes` where the request carries
 * transaction data) signed by the holder key the credential is bound to.
 */
export async function presentCredential(input: {
  compact: string;
  claims: Record<string, unknown>;
  disclose: ClaimPath[];
  holderKey: StoredKey;
  aud: string;
  nonce: string;
  extraKeyBindingClaims?: Record<string, unknown>;
}): Promise<string> {
  const sdjwt = new SDJwtInstance({
    hasher: sha256Hasher,
    hashAlg: "sha-256",
    kbSigner: sdJwtSigner(input.holderKey),
    kbSignAlg: "ES256",
  });
  const frame = presentationFrame(input.claims, input.disclose);
  return sdjwt.present(input.compact, frame as never, {
    kb: {
      payload: {
        iat: Math.floor(Date.now() / 1000),
        aud: input.aud,
        nonce: input.nonce,
        ...input.extraKeyBindingClaims,
      } as never,
    },
  });
}
