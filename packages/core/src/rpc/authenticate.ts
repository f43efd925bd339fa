import type { RequestContext } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { findApiKeyPrincipal } from "./authenticate-api-key";
import { findStaffPrincipal } from "./authenticate-staff";

const unauthenticated = (message: string) => new DomainError("Unauthenticated", message);

/** Resolves the caller: a console session when present, otherwise `Authorization: ApiKey <key>`. */
export async function authenticate(ctx: RequestContext): Promise<Principal> {
  if (ctx.principal) return ctx.principal;
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
