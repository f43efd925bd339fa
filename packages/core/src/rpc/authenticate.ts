import type { RequestContext } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { findApiKeyPrincipal } from "./authenticate-api-key";
import { findStaffPrincipal } from "./authenticate-staff";
import { tenantStatusRepository } from "./tenant-status-repository";

const unauthenticated = (message: string) => new DomainError("Unauthenticated", message);

/**
 * Resolves the caller: a console session when present, otherwise `Authorization: ApiKey <key>`. A caller
 * of a suspended tenant is refused here, on every operation (403 TenantSuspended, docs/api/tenants.md).
 */
export async function authenticate(ctx: RequestContext): Promise<Principal> {
  if (ctx.principal) return ctx.principal;
  const principal = await findPrincipal(ctx);
  if (await tenantStatusRepository.isSuspended(ctx.db, ctx.deps.caches, principal.tenantId)) {
    throw new DomainError(
      "TenantSuspended",
      `The tenant ${principal.tenantId} is suspended: its API keys and console users are refused until a platform operator reactivates it.`,
    );
  }
  return principal;
}

async function findPrincipal(ctx: RequestContext): Promise<Principal> {
  if (ctx.staffSessionToken) {
    const staff = await findStaffPrincipal(ctx.db, ctx.staffSessionToken);
    if (!staff) throw unauthenticated("The console session is missing or has expired; sign in again.");
    return staff;
  }
  const header = ctx.authorization;
  if (!header) throw unauthenticated("Send the header 'Authorization: ApiKey <key>'.");
  const match = /^ApiKey +(\S+)$/i.exec(header.trim());
  if (!match) throw unauthenticated("The Authorization header must use the ApiKey scheme: 'ApiKey <key>'.");
  const principal = await findApiKeyPrincipal(ctx.db, ctx.deps.caches, match[1]!);
  if (!principal.ok) throw unauthenticated(principal.reason);
  return principal.principal;
}
