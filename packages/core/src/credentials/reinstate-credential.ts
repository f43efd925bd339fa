import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import type { Principal } from "../shared/principal";
import { changeSuspension, REINSTATE } from "./change-suspension";

/**
 * Credentials_Reinstate: a suspended credential's status list entry becomes VALID (0) again, every
 * suspended copy of its batch with it. Reinstating an active credential answers its state.
 */
export function reinstateCredential(
  deps: Pick<AppDeps, "database" | "config" | "caches" | "metrics">,
  db: UnitOfWork,
  principal: Principal,
  credentialId: string,
) {
  return changeSuspension(deps, db, principal, credentialId, REINSTATE);
}
