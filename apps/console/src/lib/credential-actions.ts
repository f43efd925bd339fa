import type { CredentialState } from "@cred/contracts/credentials";

/** A change of a credential's state staff can make (Credentials_Suspend, _Reinstate, _Revoke). */
export type CredentialAction = "suspend" | "reinstate" | "revoke";

/**
 * The changes that apply to a credential in `status`: an active one can be suspended or revoked, a
 * suspended one reinstated or revoked; a revoked one is final, and an expired one is no longer worth
 * changing (the API would suspend it, but no verifier accepts it anyway). None at all without a status
 * list entry (`statusEnabled: false`): there is nothing to change (the API answers 400).
 */
export function credentialActions(credential: {
  status: CredentialState;
  statusList: unknown | null;
}): CredentialAction[] {
  if (credential.statusList === null) return [];
  switch (credential.status) {
    case "active":
      return ["suspend", "revoke"];
    case "suspended":
      return ["reinstate", "revoke"];
    case "revoked":
    case "expired":
      return [];
  }
}
