import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import { activeIssuersCache } from "./issuer-caches";
import { issuerRepository } from "./issuer-repository";

/**
 * The issuer row with its keys once it is active (then cached, `activeIssuersCache`); a draft or
 * unknown issuer is read every time. Configurations, versions and grants: `configurationCatalog`.
 */
export function activeIssuer(db: UnitOfWork, caches: Caches, issuerId: string) {
  return caches.of(activeIssuersCache).get(
    issuerId,
    () => issuerRepository.findByIdWithKeys(db, issuerId),
    (row) => row?.status === "active",
  );
}
