import { integrityMatches, parseTypeMetadataClaimRules, type TypeMetadataClaimRule } from "@cred/oid4vc";
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
  /** The document at the type's URL does not match the credential's `vct#integrity`. */
  | { kind: "integrity_mismatch" }
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

async function fetchRules(
  deps: Pick<AppDeps, "config">,
  vct: string,
  integrity: string | undefined,
): Promise<TypeClaimRules> {
  let bytes: Buffer;
  try {
    bytes = await outboundGetBytes(deps.config, vct, {
      accept: "application/json",
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
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
  if ((document as { vct?: unknown } | null)?.vct !== vct) return { kind: "none" };
  const rules = parseTypeMetadataClaimRules(document);
  return rules ? { kind: "rules", rules, source: "fetched" } : { kind: "none" };
}
