"use client";
import type { TCredential } from "@cred/contracts/credentials";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { type CredentialAction, credentialActions } from "../lib/credential-actions";
import { useRefresh } from "../lib/refresh";
import { useTRPC } from "../lib/trpc";
import { useCan } from "./session";
import { ErrorAlert, Success } from "./status";

/** Each action's button, the question it asks first, and what it says once done. */
const ACTIONS: Record<
  CredentialAction,
  { label: string; className: string; confirm: string; done: string; failed: string }
> = {
  suspend: {
    label: "Suspend credential",
    className: "secondary",
    confirm:
      "Suspend this credential (and every active copy issued with it)? Verifiers refuse it from their next status list fetch until it is reinstated.",
    done: "suspended",
    failed: "Could not suspend the credential",
  },
  reinstate: {
    label: "Reinstate credential",
    className: "secondary",
    confirm:
      "Reinstate this credential (and every suspended copy issued with it)? Verifiers accept it again from their next status list fetch.",
    done: "reinstated",
    failed: "Could not reinstate the credential",
  },
  revoke: {
    label: "Revoke credential",
    className: "danger",
    confirm:
      "Revoke this credential (and every copy issued with it)? This cannot be undone; verifiers refuse it from their next status list fetch.",
    done: "revoked",
    failed: "Could not revoke the credential",
  },
};

/**
 * Suspend, reinstate or revoke a credential (Credentials_Suspend, _Reinstate, _Revoke; scope
 * `credentials.revoke`), offered only where the change applies to its current state, each after a
 * confirmation. The credential and every list showing it are read again afterwards, so the state and the
 * actions offered follow.
 */
export function CredentialActions({ credential }: { credential: TCredential }) {
  const trpc = useTRPC();
  const canChange = useCan("credentials.revoke");
  const refresh = useRefresh("credentials", "issuanceTransactions", "dashboard");
  const [last, setLast] = useState<CredentialAction | null>(null);
  const options = (action: CredentialAction) => ({
    onMutate: () => setLast(action),
    onSuccess: refresh,
  });
  const mutations = {
    suspend: useMutation(trpc.credentials.suspend.mutationOptions(options("suspend"))),
    reinstate: useMutation(trpc.credentials.reinstate.mutationOptions(options("reinstate"))),
    revoke: useMutation(trpc.credentials.revoke.mutationOptions(options("revoke"))),
  };
  if (!canChange) return null;

  const available = credentialActions(credential);
  const busy = Object.values(mutations).some((m) => m.isPending);
  const lastMutation = last ? mutations[last] : null;
  return (
    <div data-testid="credential-actions">
      {available.length > 0 ? (
        <div className="actions">
          {available.map((action) => (
            <button
              key={action}
              type="button"
              className={ACTIONS[action].className}
              disabled={busy}
              onClick={() => {
                if (window.confirm(ACTIONS[action].confirm)) {
                  mutations[action].mutate({ credentialId: credential.id });
                }
              }}
            >
              {ACTIONS[action].label}
            </button>
          ))}
        </div>
      ) : (
        <p className="hint" data-testid="no-credential-actions">
          {credential.statusList === null
            ? "Its state cannot change: it was issued without a status list entry."
            : `No change applies to ${credential.status === "revoked" ? "a revoked" : "an expired"} credential.`}
        </p>
      )}
      {last && lastMutation?.isError && (
        <ErrorAlert error={lastMutation.error} title={ACTIONS[last].failed} />
      )}
      {last && lastMutation?.isSuccess && (
        <Success>
          Credential <code>{credential.id}</code> {ACTIONS[last].done}.
        </Success>
      )}
    </div>
  );
}
