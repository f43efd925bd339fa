import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import type { Principal } from "../shared/principal";
import { changeSuspension, SUSPEND } from "./change-suspension";

/**
 * Credentials_Suspend: the credential's status list entry becomes SUSPENDED (2), every copy of its batch
 * with it; reversible with Credentials_Reinstate. Suspending a suspended credential answers its state.
 */
export function suspendCredential(
  deps: Pick<AppDeps, "database" | "config" | "caches" | "metrics">,
  db: UnitOfWork,
  principal: Principal,
  credentialId: string,
) {
  return changeSuspension(deps, db, principal, credentialId, SUSPEND);
}
