import {
  extendTypeMetadataClaimRules,
  parseTypeMetadataClaimEntries,
  parseTypeMetadataClaimRules,
  type TypeMetadataClaimEntry,
  type TypeMetadataClaimRule,
} from "@cred/oid4vc";
import { credentialTypeMetadata } from "../issuance";
import { activeIssuer, credentialIssuerIdentifier } from "../issuers";
import { cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import type { TrustSource } from "./issuer-trust";
import { MAX_EXTENDS_LINKS, readTypeMetadataChain } from "./type-metadata-chain";

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

/** Fetched rules and integrity mismatches by `vct|integrity`; failures to fetch are not kept. */
const fetchedTypeRules = cacheSpec<TypeClaimRules>("verification.typeClaimRules", {
  max: 1_000,
  ttlMs: 5 * 60_000,
});

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

/**
 * The claim rules of the type at `vct`, fetched, with those of every type it `extends` merged in
 * (SD-JWT VC "Extending Type Metadata": the extended type is processed first; "Extending Claim
 * Metadata" for the merge, `extendTypeMetadataClaimRules`), the chain read by `readTypeMetadataChain`
 * (each document checked against the integrity value naming it: a mismatch anywhere →
 * `integrity_mismatch`). A cycle, more than five links, or an extending type that relaxes an `sd` /
 * `mandatory` of the type it extends → `invalid` (the specification has the credential rejected). A
 * document of the chain that cannot be fetched or read, or whose `claims` are malformed → `none`: Type
 * Metadata that cannot be processed completely is not used at all.
 */
async function fetchRules(
  deps: Pick<AppDeps, "config" | "outboundTrace">,
  vct: string,
  integrity: string | undefined,
): Promise<TypeClaimRules> {
  const chain = await readTypeMetadataChain(deps, vct, integrity);
  if (chain.kind === "integrity_mismatch") return { kind: "integrity_mismatch", at: chain.at };
  if (chain.kind === "cycle") {
    return { kind: "invalid", reason: `the Type Metadata of ${vct} extends itself (through ${chain.at})` };
  }
  if (chain.kind === "too_long") {
    return {
      kind: "invalid",
      reason: `the Type Metadata of ${vct} extends more than ${MAX_EXTENDS_LINKS} types`,
    };
  }
  if (chain.kind === "unreadable") return { kind: "none" };
  const stated: { vct: string; entries: TypeMetadataClaimEntry[] }[] = [];
  for (const link of chain.links) {
    const entries = parseTypeMetadataClaimEntries(link.document);
    if (!entries) return { kind: "none" };
    stated.push({ vct: link.vct, entries });
  }
  // The root's rules first (its entries with the defaults), then each extending type's merged over them.
  const [root, ...extending] = stated.toReversed();
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
