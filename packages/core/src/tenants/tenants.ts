import type { UnitOfWork } from "@cred/db";
import { newId } from "../shared/ids";
import { tenantRepository } from "./tenant-repository";

export async function createTenant(db: UnitOfWork, name: string) {
  return tenantRepository.create(db, newId("ten"), name);
}

/** Every tenant, by id (the operator's CLI). */
export function listTenants(db: UnitOfWork) {
  return tenantRepository.list(db);
}

/** The tenant, or null (the operator's CLI checks the ids it is given). */
export function findTenant(db: UnitOfWork, id: string) {
  return tenantRepository.findById(db, id);
}
