import { cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { readTypeMetadataChain } from "./type-metadata-chain";

/** Complete `extends` chains by `vct|integrity`. */
const typeAncestorChains = cacheSpec<string[]>("verification.typeAncestors", {
  max: 1_000,
  ttlMs: 5 * 60_000,
});

/**
 * The types `vct` extends (SD-JWT VC §7.6), nearest first, read from Type Metadata at each type's URL
 * (`readTypeMetadataChain`: the outbound rules of JWKS and status lists, one deadline for the whole
 * chain, each document matching the integrity value naming it). All or nothing (§7.6, §9, §10.6): a
 * type that is not an https URL, a failure, a cycle or more than five links give no ancestors at all.
 * Complete chains are kept five minutes; failures are not kept.
 */
export function typeAncestors(
  deps: Pick<AppDeps, "config" | "caches" | "outboundTrace">,
  vct: string,
  integrity?: string,
): Promise<string[]> {
  return deps.caches.of(typeAncestorChains).get(
    `${vct}|${integrity ?? ""}`,
    async () => {
      const chain = await readTypeMetadataChain(deps, vct, integrity);
      return chain.kind === "chain" ? chain.links.slice(1).map((link) => link.vct) : [];
    },
    (found) => found.length > 0,
  );
}
