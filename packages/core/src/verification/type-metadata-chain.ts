import { integrityMatches, parseTypeMetadataReference } from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { outboundGetBytes } from "../shared/outbound-fetch";

/** How many `extends` links are followed before the chain is given up (SD-JWT VC §10.6: bound it). */
export const MAX_EXTENDS_LINKS = 5;
/** The whole chain is read within this time, whatever its length. */
const DEADLINE_MS = 5_000;
const MAX_DOCUMENT_BYTES = 64 * 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A type's Type Metadata chain: the credential's type first, then each type it `extends`, in order. */
export type TypeMetadataChain =
  | { kind: "chain"; links: { vct: string; document: Record<string, unknown> }[] }
  /** The document at `at` does not match the integrity value naming it. */
  | { kind: "integrity_mismatch"; at: string }
  /** `at` is reached a second time: the types extend each other. */
  | { kind: "cycle"; at: string }
  /** More than `MAX_EXTENDS_LINKS` links. */
  | { kind: "too_long" }
  /** A document that is not an http(s) type, cannot be fetched in time, is not JSON of its type. */
  | { kind: "unreadable"; at: string };

/**
 * Reads the Type Metadata of `vct` and of every type it `extends` (SD-JWT VC §7.5.1, "Extending Type
 * Metadata"), each from its URL under the outbound rules of JWKS and status lists (public https,
 * 64 KiB, one 5 s deadline for the whole chain), each checked against the integrity value naming it
 * (the credential's `vct#integrity`, then each `extends#integrity`, over the octets received), until a
 * document without `extends`. Used for the types a credential extends (`typeAncestors`) and for the
 * claim rules along the chain (`typeClaimRules`).
 */
export async function readTypeMetadataChain(
  deps: Pick<AppDeps, "config" | "outboundTrace">,
  vct: string,
  integrity: string | undefined,
): Promise<TypeMetadataChain> {
  const deadline = Date.now() + DEADLINE_MS;
  const links: { vct: string; document: Record<string, unknown> }[] = [];
  const seen = new Set<string>();
  let current: string | undefined = vct;
  let currentIntegrity = integrity;
  while (current !== undefined) {
    if (seen.has(current)) return { kind: "cycle", at: current };
    if (links.length > MAX_EXTENDS_LINKS) return { kind: "too_long" };
    seen.add(current);
    if (!/^https?:\/\//.test(current)) return { kind: "unreadable", at: current };
    let bytes: Buffer;
    try {
      bytes = await outboundGetBytes(deps.config, current, {
        accept: "application/json",
        maxBytes: MAX_DOCUMENT_BYTES,
        timeoutMs: Math.max(1, deadline - Date.now()),
        trace: deps.outboundTrace,
      });
    } catch {
      return { kind: "unreadable", at: current };
    }
    if (currentIntegrity !== undefined && !integrityMatches(bytes, currentIntegrity)) {
      return { kind: "integrity_mismatch", at: current };
    }
    let document: unknown;
    try {
      document = JSON.parse(utf8.decode(bytes));
    } catch {
      return { kind: "unreadable", at: current };
    }
    const reference = parseTypeMetadataReference(document);
    if (!reference || reference.vct !== current) return { kind: "unreadable", at: current };
    links.push({ vct: current, document: document as Record<string, unknown> });
    current = reference.extends;
    currentIntegrity = reference.extendsIntegrity;
  }
  return { kind: "chain", links };
}
