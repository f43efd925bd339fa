"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../lib/trpc";
import { useCan } from "./session";
import { ErrorAlert, Success } from "./status";

interface Transaction {
  id: string;
  status: string;
  credentialId: string | null;
}

/**
 * What staff can do with an issuance transaction: cancel it while its offer is pending
 * (IssuanceTransactions_Cancel), revoke its credential once issued (Credentials_Revoke, every copy of
 * a batch). Each asks for confirmation and is hidden from roles that lack the scope.
 */
export function TransactionActions({ transaction }: { transaction: Transaction }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canIssue = useCan("credentials.issue");
  const canRevoke = useCan("credentials.revoke");
  const refresh = () =>
    queryClient.invalidateQueries({
      queryKey: trpc.issuanceTransactions.get.queryKey({ transactionId: transaction.id }),
    });
  const cancel = useMutation(trpc.issuanceTransactions.cancel.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.credentials.revoke.mutationOptions());
  const credentialId = transaction.credentialId;

  return (
    <div>
      <div className="actions">
        {canIssue && transaction.status === "pending" && (
          <button
            type="button"
            className="secondary"
            disabled={cancel.isPending}
            onClick={() => {
              if (window.confirm("Cancel this offer? A wallet can no longer redeem it.")) {
                cancel.mutate({ transactionId: transaction.id });
              }
            }}
          >
            Cancel offer
          </button>
        )}
        {canRevoke && credentialId && !revoke.isSuccess && (
          <button
            type="button"
            className="danger"
            disabled={revoke.isPending}
            onClick={() => {
              if (
                window.confirm(
                  "Revoke this credential (and every copy issued with it)? This cannot be undone; verifiers see it at once.",
                )
              ) {
                revoke.mutate({ credentialId });
              }
            }}
          >
            Revoke credential
          </button>
        )}
      </div>
      <ErrorAlert error={cancel.error} title="Could not cancel the offer" />
      <ErrorAlert error={revoke.error} title="Could not revoke the credential" />
      {revoke.isSuccess && (
        <Success>
          Credential <code>{revoke.data.data.credentialId}</code> revoked at{" "}
          {new Date(revoke.data.data.revokedAt ?? Date.now()).toLocaleString()}.
        </Success>
      )}
    </div>
  );
}
