import { integrityMatches, parseTypeMetadataReference } from "@cred/oid4vc";
import type { AppDeps } from "../context";
import { BoundedMap } from "../shared/bounded-map";
import { outboundGet } from "./outbound-fetch";

/** How many `extends` links are followed; SD-JWT VC §10.5 asks consumers to bound the chain. */
const MAX_DEPTH = 5;
const TTL_MS = 5 * 60_000;
const MAX_DOCUMENT_BYTES = 64 * 1024;
const ancestors = new BoundedMap<string, { value: string[]; expires: number }>(1_000);

/**
 * The types `vct` extends (SD-JWT VC §7.6), nearest first, read from Type Metadata at each type's URL
 * (§7.5.1; the same outbound rules as JWKS and status lists: public https, bounded size and time). A
 * document is used only if its `vct` is the type asked for and, where an integrity value names it (the
 * credential's `vct#integrity`, a document's `extends#integrity`), its bytes match (§9). The chain stops
 * at a type that is not a URL, a document that cannot be fetched or read, a cycle, or five links.
 * Results are kept for five minutes.
 */
export async function typeAncestors(
  deps: Pick<AppDeps, "config">,
  vct: string,
  integrity?: string,
): Promise<string[]> {
  const key = `${vct}|${integrity ?? ""}`;
  const cached = ancestors.get(key);
  if (cached && cached.expires > Date.now()) return cached.value;
  const found: string[] = [];
  const seen = new Set([vct]);
  let current = vct;
  let currentIntegrity = integrity;
  for (let depth = 0; depth < MAX_DEPTH && /^https?:\/\//.test(current); depth++) {
    let body: string;
    try {
      body = await outboundGet(deps.config, current, {
        accept: "application/json",
        maxBytes: MAX_DOCUMENT_BYTES,
      });
    } catch {
      break;
    }
    if (currentIntegrity !== undefined && !integrityMatches(body, currentIntegrity)) break;
    let reference: ReturnType<typeof parseTypeMetadataReference>;
    try {
      reference = parseTypeMetadataReference(JSON.parse(body));
    } catch {
      break;
    }
    if (!reference || reference.vct !== current || !reference.extends || seen.has(reference.extends)) break;
    found.push(reference.extends);
    seen.add(reference.extends);
    current = reference.extends;
    currentIntegrity = reference.extendsIntegrity;
  }
  ancestors.set(key, { value: found, expires: Date.now() + TTL_MS });
  return found;
}
