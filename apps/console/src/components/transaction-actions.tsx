"use client";
import { ZSupplyClaimsRequest } from "@cred/contracts/issuance";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "../lib/trpc";
import { useCan } from "./session";
import { ErrorAlert, Success } from "./status";

interface Transaction {
  id: string;
  status: string;
  credentialId: string | null;
  deferral?: { claimsSuppliedAt: string | null } | null;
}

/**
 * What staff can do with an issuance transaction: cancel it while its offer is pending
 * (IssuanceTransactions_Cancel), supply the claims of a deferred one after a review
 * (IssuanceTransactions_SupplyClaims), revoke its credential once issued (Credentials_Revoke, every copy
 * of a batch). Each is hidden from roles that lack the scope.
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
      {canIssue && transaction.status === "pending" && transaction.deferral?.claimsSuppliedAt === null && (
        <SupplyClaimsForm transactionId={transaction.id} onSupplied={refresh} />
      )}
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

/**
 * The claims of a deferred transaction, as JSON; the server checks them against the configuration version
 * the transaction was created with and says what is wrong.
 */
function SupplyClaimsForm({ transactionId, onSupplied }: { transactionId: string; onSupplied: () => void }) {
  const trpc = useTRPC();
  const supply = useMutation(
    trpc.issuanceTransactions.supplyClaims.mutationOptions({ onSuccess: onSupplied }),
  );
  const [text, setText] = useState("{\n  \n}");
  const [notJson, setNotJson] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let claims: unknown;
    try {
      claims = JSON.parse(text);
    } catch (error) {
      setNotJson((error as Error).message);
      return;
    }
    // The API's own schema, so the form refuses exactly what the API would (the claims it checks itself).
    const parsed = ZSupplyClaimsRequest.safeParse({ transactionId, claims });
    if (!parsed.success) {
      setNotJson(parsed.error.issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; "));
      return;
    }
    setNotJson(null);
    supply.mutate(parsed.data);
  };
  return (
    <form onSubmit={submit} aria-labelledby="supply-title">
      <h3 id="supply-title">Supply the claims</h3>
      <p className="hint">
        This is a deferred issuance: the wallet gets its credential once the claims are here. They are checked
        against the credential configuration, as at creation.
      </p>
      <label>
        Claims (JSON object)
        <textarea rows={6} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      {notJson && (
        <div role="alert" className="alert alert-error">
          Not a JSON object: {notJson}
        </div>
      )}
      <ErrorAlert error={supply.error} title="Could not supply the claims" />
      <button type="submit" className="secondary" disabled={supply.isPending}>
        Supply claims
      </button>
    </form>
  );
}
