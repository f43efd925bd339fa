import type { Db } from "@cred/db";
import type { Principal, StaffRole } from "../shared/principal";
import type { Environment } from "../shared/scopes";
import { hashSecret } from "../shared/secret-box";
import { ROLE_SCOPES } from "./roles";

export async function findStaffPrincipal(db: Db, token: string): Promise<Principal | null> {
  const session = await db.staffSession.findUnique({ where: { tokenHash: hashSecret(token) } });
  if (!session || session.expiresAt.getTime() <= Date.now()) return null;
  const user = await db.staffUser.findUnique({ where: { id: session.userId } });
  if (!user) return null;
  const role = user.role as StaffRole;
  return {
    kind: "staff",
    id: user.id,
    tenantId: user.tenantId,
    environment: session.environment as Environment,
    scopes: new Set(ROLE_SCOPES[role] ?? []),
    issuerId: null,
    role,
    email: user.email,
  };
}
