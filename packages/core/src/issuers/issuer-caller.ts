import type { UnitOfWork } from "@cred/db";
import { notFound } from "../shared/errors";
import type { Principal, TenantScope } from "../shared/principal";
import { type IssuerRow, issuerRepository } from "./issuer-repository";

/** The caller's partition plus, for issuer-client keys, the one issuer it may act for. */
export interface IssuerCaller extends TenantScope {
  boundIssuerId: string | null;
}

export function issuerCallerOf(ctx: { principal: Principal }): IssuerCaller {
  const { tenantId, environment, issuerId } = ctx.principal;
  return { tenantId, environment, boundIssuerId: issuerId };
}

export function scopeOfCaller(caller: IssuerCaller): TenantScope {
  return { tenantId: caller.tenantId, environment: caller.environment };
}

/** True when the caller may see this issuer at all (issuer-client keys see only their own). */
export function canSeeIssuer(caller: IssuerCaller, issuerId: string): boolean {
  return caller.boundIssuerId === null || caller.boundIssuerId === issuerId;
}

/**
 * Like `findVisibleIssuer`, with the issuer's row locked until the transaction ends (key and certificate
 * changes queue): visible first, so that nobody can lock an issuer they cannot see, then read again
 * under the lock.
 */
export async function lockVisibleIssuer(
  tx: UnitOfWork,
  caller: IssuerCaller,
  issuerId: string,
): Promise<IssuerRow> {
  await findVisibleIssuer(tx, caller, issuerId);
  await issuerRepository.lockForUpdate(tx, scopeOfCaller(caller), issuerId);
  return findVisibleIssuer(tx, caller, issuerId);
}

/** The issuer, when it exists in the caller's partition and the caller may see it; otherwise 404. */
export async function findVisibleIssuer(
  db: UnitOfWork,
  caller: IssuerCaller,
  issuerId: string,
): Promise<IssuerRow> {
  const row = canSeeIssuer(caller, issuerId)
    ? await issuerRepository.findById(db, scopeOfCaller(caller), issuerId)
    : null;
  if (!row) throw notFound("The issuer");
  return row;
}
