import {
  extendTypeMetadataClaimRules,
  integrityMatches,
  parseTypeMetadataClaimEntries,
  parseTypeMetadataClaimRules,
  parseTypeMetadataReference,
  type TypeMetadataClaimEntry,
  type TypeMetadataClaimRule,
} from "@cred/oid4vc";
import { credentialTypeMetadata } from "../issuance";
import { activeIssuer, credentialIssuerIdentifier } from "../issuers";
import { cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { outboundGetBytes } from "../shared/outbound-fetch";
import type { TrustSource } from "./issuer-trust";

/** What the verifier knows of a credential type's claim rules (SD-JWT VC §7.8). */
export type TypeClaimRules =
  /** The rules of the type's Type Metadata; `source` says where they were read. */
  | { kind: "rules"; rules: TypeMetadataClaimRule[]; source: "configuration" | "fetched" }
  /** A document of the chain (`at`) does not match the integrity value naming it. */
  | { kind: "integrity_mismatch"; at: string }
  /** The chain cannot be processed: a cycle, too many links, or a type relaxing the one it extends. */
  | { kind: "invalid"; reason: string }
  /** No Type Metadata to apply: not looked for, not found, unreadable or unreachable. */
  | { kind: "none" };

const MAX_DOCUMENT_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
/** Fetched rules and integrity mismatches by `vct|integrity`; failures to fetch are not kept. */
const fetchedTypeRules = cacheSpec<TypeClaimRules>("verification.typeClaimRules", {
  max: 1_000,
  ttlMs: 5 * 60_000,
});
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The claim rules (`mandatory`, `sd`) a presented credential's type sets, for the engine to hold the
 * presentation to. A credential of a platform issuer whose `vct` is the default type URL of one of its
 * configurations: that configuration's own Type Metadata, read from the database (what the issuer
 * serves at the URL, no request to ourselves). Otherwise the document at the `vct` URL, fetched under
 * the outbound rules of JWKS and status lists, only when the credential carries `vct#integrity` (the
 * issuer committed to a document) or the policy credential reads Type Metadata anyway
 * (`acceptExtendedTypes`); its octets must match `vct#integrity` when present and it must describe
 * this `vct`.
 */
export async function typeClaimRules(
  deps: AppDeps,
  source: TrustSource | undefined,
  vct: string,
  integrity: string | undefined,
  readTypeMetadata: boolean,
): Promise<TypeClaimRules> {
  if (source?.kind === "platform") {
    const own = await configurationRules(deps, source.issuerId, vct);
    if (own) return own;
  }
  if (!/^https?:\/\//.test(vct) || (integrity === undefined && !readTypeMetadata)) return { kind: "none" };
  return deps.caches.of(fetchedTypeRules).get(
    `${vct}|${integrity ?? ""}`,
    () => fetchRules(deps, vct, integrity),
    (found) => found.kind !== "none",
  );
}

async function configurationRules(
  deps: AppDeps,
  issuerId: string,
  vct: string,
): Promise<TypeClaimRules | null> {
  const prefix = `${credentialIssuerIdentifier(deps.config, issuerId)}/credentials/`;
  if (!vct.startsWith(prefix)) return null;
  const db = deps.database.root;
  // Whatever its state now: credentials it issued keep the rules their type was published with.
  const issuer = await activeIssuer(db, deps.caches, issuerId);
  if (!issuer) return null;
  const metadata = await credentialTypeMetadata(deps, db, issuer, vct.slice(prefix.length));
  const rules = metadata ? parseTypeMetadataClaimRules(metadata) : null;
  return rules ? { kind: "rules", rules, source: "configuration" } : null;
}

/** How many `extends` links are followed (SD-JWT VC §10.6: bound the chain), as for `typeAncestors`. */
const MAX_EXTENDS_DEPTH = 5;
/** The whole chain is read within this time, whatever its length. */
const CHAIN_DEADLINE_MS = 5_000;

type ReadDocument =
  | { kind: "document"; document: Record<string, unknown> }
  | { kind: "integrity_mismatch" }
  | { kind: "none" };

async function readTypeDocument(
  deps: Pick<AppDeps, "config">,
  vct: string,
  integrity: string | undefined,
  deadline: number,
): Promise<ReadDocument> {
  if (!/^https?:\/\//.test(vct)) return { kind: "none" };
  let bytes: Buffer;
  try {
    bytes = await outboundGetBytes(deps.config, vct, {
      accept: "application/json",
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: Math.max(1, Math.min(FETCH_TIMEOUT_MS, deadline - Date.now())),
    });
  } catch {
    return { kind: "none" };
  }
  if (integrity !== undefined && !integrityMatches(bytes, integrity)) return { kind: "integrity_mismatch" };
  let document: unknown;
  try {
    document = JSON.parse(utf8.decode(bytes));
  } catch {
    return { kind: "none" };
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) return { kind: "none" };
  if ((document as { vct?: unknown }).vct !== vct) return { kind: "none" };
  return { kind: "document", document: document as Record<string, unknown> };
}

/**
 * The claim rules of the type at `vct`, fetched, with those of every type it `extends` merged in
 * (SD-JWT VC "Extending Type Metadata": the extended type is processed first; "Extending Claim
 * Metadata" for the merge, `extendTypeMetadataClaimRules`). Each document is read through the
 * outbound fetch guard and must match the integrity value that names it (the credential's
 * `vct#integrity`, then each `extends#integrity`): a mismatch anywhere → `integrity_mismatch`. A cycle,
 * more than five links, or an extending type that relaxes an `sd` / `mandatory` of the type it extends
 * → `invalid` (the specification has the credential rejected). A document of the chain that cannot be
 * fetched or read → `none`: Type Metadata that cannot be processed completely is not used at all.
 */
async function fetchRules(
  deps: Pick<AppDeps, "config">,
  vct: string,
  integrity: string | undefined,
): Promise<TypeClaimRules> {
  const deadline = Date.now() + CHAIN_DEADLINE_MS;
  // The chain from the credential's type up to the root, each with the entries it states.
  const chain: { vct: string; entries: TypeMetadataClaimEntry[] }[] = [];
  const seen = new Set<string>();
  let current: string | undefined = vct;
  let currentIntegrity = integrity;
  while (current !== undefined) {
    if (seen.has(current)) {
      return { kind: "invalid", reason: `the Type Metadata of ${vct} extends itself (through ${current})` };
    }
    if (chain.length > MAX_EXTENDS_DEPTH) {
      return {
        kind: "invalid",
        reason: `the Type Metadata of ${vct} extends more than ${MAX_EXTENDS_DEPTH} types`,
      };
    }
    seen.add(current);
    const read = await readTypeDocument(deps, current, currentIntegrity, deadline);
    if (read.kind === "integrity_mismatch") return { kind: "integrity_mismatch", at: current };
    if (read.kind === "none") return { kind: "none" };
    const reference = parseTypeMetadataReference(read.document);
    const entries = parseTypeMetadataClaimEntries(read.document);
    if (!reference || !entries) return { kind: "none" };
    chain.push({ vct: current, entries });
    current = reference.extends;
    currentIntegrity = reference.extendsIntegrity;
  }
  // The root's rules first (its entries with the defaults), then each extending type's merged over them.
  const [root, ...extending] = chain.toReversed();
  let rules: TypeMetadataClaimRule[] = root!.entries.map((entry) => ({
    path: entry.path,
    mandatory: entry.mandatory ?? false,
    sd: entry.sd ?? "allowed",
  }));
  for (const link of extending) {
    const merged = extendTypeMetadataClaimRules(rules, link.entries);
    if ("conflicts" in merged) {
      return {
        kind: "invalid",
        reason: `${link.vct} relaxes the type it extends: ${merged.conflicts.join("; ")}`,
      };
    }
    rules = merged.rules;
  }
  return { kind: "rules", rules, source: "fetched" };
}
