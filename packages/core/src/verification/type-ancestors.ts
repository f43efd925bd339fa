import { integrityMatches, parseTypeMetadataReference } from "@cred/oid4vc";
import { cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { outboundGetBytes } from "../shared/outbound-fetch";

/** How many `extends` links are followed before the chain is given up (SD-JWT VC §10.6: bound it). */
const MAX_DEPTH = 5;
/** The whole chain is read within this time, whatever its length. */
const DEADLINE_MS = 5_000;
const MAX_DOCUMENT_BYTES = 64 * 1024;
/** Complete `extends` chains by `vct|integrity`. */
const typeAncestorChains = cacheSpec<string[]>("verification.typeAncestors", {
  max: 1_000,
  ttlMs: 5 * 60_000,
});
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The types `vct` extends (SD-JWT VC §7.6), nearest first, read from Type Metadata at each type's URL
 * (§7.5.1; the outbound rules of JWKS and status lists: public https, bounded size, one deadline for
 * the whole chain). All or nothing (§7.6, §9, §10.6): every document must be fetched, be JSON of the
 * type asked for, and match the integrity value naming it (the credential's `vct#integrity`, then each
 * `extends#integrity`, over the octets received), until one without `extends`; a type that is not an
 * https URL, a failure, a cycle or more than five links give no ancestors at all. Complete chains are
 * kept five minutes; failures are not kept.
 */
export function typeAncestors(
  deps: Pick<AppDeps, "config" | "caches">,
  vct: string,
  integrity?: string,
): Promise<string[]> {
  return deps.caches.of(typeAncestorChains).get(
    `${vct}|${integrity ?? ""}`,
    () => readChain(deps, vct, integrity),
    (found) => found.length > 0,
  );
}

async function readChain(deps: Pick<AppDeps, "config">, vct: string, integrity?: string): Promise<string[]> {
  const deadline = Date.now() + DEADLINE_MS;
  const found: string[] = [];
  const seen = new Set([vct]);
  let current = vct;
  let currentIntegrity = integrity;
  for (let depth = 0; depth <= MAX_DEPTH; depth++) {
    if (!/^https?:\/\//.test(current)) return [];
    let bytes: Buffer;
    try {
      bytes = await outboundGetBytes(deps.config, current, {
        accept: "application/json",
        maxBytes: MAX_DOCUMENT_BYTES,
        timeoutMs: Math.max(1, deadline - Date.now()),
      });
    } catch {
      return [];
    }
    if (currentIntegrity !== undefined && !integrityMatches(bytes, currentIntegrity)) return [];
    let reference: ReturnType<typeof parseTypeMetadataReference>;
    try {
      reference = parseTypeMetadataReference(JSON.parse(utf8.decode(bytes)));
    } catch {
      return [];
    }
    if (!reference || reference.vct !== current) return [];
    if (!reference.extends) return found;
    if (seen.has(reference.extends) || depth === MAX_DEPTH) return []; // a cycle, or too long
    found.push(reference.extends);
    seen.add(reference.extends);
    current = reference.extends;
    currentIntegrity = reference.extendsIntegrity;
  }
  return [];
}
