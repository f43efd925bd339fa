import type { TTenant } from "@cred/contracts/tenants";
import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import { DomainError, notFound } from "../shared/errors";
import { newId, randomToken } from "../shared/ids";
import { createStaffUser, staffUserExists } from "../staff";
import { type TenantRow, tenantRepository } from "./tenant-repository";

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

export function toTenantDto(row: TenantRow): TTenant {
  return {
    id: row.id,
    name: row.name,
    status: row.suspendedAt ? "suspended" : "active",
    suspendedAt: row.suspendedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Tenants_Get: the tenant, or 404 NotFound. */
export async function getTenant(db: UnitOfWork, id: string): Promise<TTenant> {
  const row = await tenantRepository.findById(db, id);
  if (!row) throw notFound("The tenant");
  return toTenantDto(row);
}

/** Tenants_List: a page of tenants by id; the cursor is the last id of the page before. */
export async function listTenantsPage(db: UnitOfWork, query: { limit: number; cursor?: string }) {
  const rows = await tenantRepository.page(db, query.limit + 1, query.cursor);
  const page = rows.slice(0, query.limit);
  return {
    data: page.map(toTenantDto),
    nextCursor: rows.length > query.limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/**
 * Tenants_CreateAdmin: a console administrator whose home is the tenant, with a generated password
 * returned once. 404 for an unknown tenant; 409 AlreadyExists when the e-mail is a console user already
 * (staff are unique by e-mail; `pnpm cli staff grant` adds a tenant to an existing user).
 */
export async function createTenantAdmin(db: UnitOfWork, tenantId: string, email: string) {
  if (!(await tenantRepository.findById(db, tenantId))) throw notFound("The tenant");
  if (await staffUserExists(db, email))
    throw new DomainError("AlreadyExists", `${email} is a console user already.`, [
      { code: "AlreadyExists", target: "email", message: "is a console user already" },
    ]);
  const temporaryPassword = randomToken(15);
  await createStaffUser(db, { tenantId, email, password: temporaryPassword, role: "admin" });
  return { email: email.toLowerCase(), role: "admin" as const, temporaryPassword };
}

/** Tenants_Create: the tenant and, when `adminEmail` is given, its first administrator, in one transaction. */
export async function createTenantWithAdmin(db: UnitOfWork, input: { name: string; adminEmail?: string }) {
  return db.transaction(async (tx) => {
    const tenant = await createTenant(tx, input.name);
    const admin = input.adminEmail ? await createTenantAdmin(tx, tenant.id, input.adminEmail) : null;
    return { ...toTenantDto(tenant), admin };
  });
}

/**
 * Tenants_Suspend / Tenants_Reactivate: 404 for an unknown tenant, 409 InvalidState when it is in that
 * state already, and the caller's own tenant cannot be suspended (it would lock the caller out).
 */
export async function setTenantSuspended(
  db: UnitOfWork,
  caches: Caches,
  input: { tenantId: string; suspended: boolean; callerTenantId: string },
): Promise<TTenant> {
  const row = await tenantRepository.findById(db, input.tenantId);
  if (!row) throw notFound("The tenant");
  if (input.suspended && input.tenantId === input.callerTenantId)
    throw new DomainError(
      "InvalidState",
      "A platform operator cannot suspend the tenant they act in; use another tenant's operator or key.",
    );
  const changed = await tenantRepository.setSuspended(db, caches, input.tenantId, input.suspended);
  if (!changed)
    throw new DomainError(
      "InvalidState",
      `The tenant is ${input.suspended ? "suspended" : "active"} already.`,
    );
  return toTenantDto(changed);
}
