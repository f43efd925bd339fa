"use client";
import { ZSupplyClaimsRequest } from "@cred/contracts/issuance";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useRefresh } from "../lib/refresh";
import { useTRPC } from "../lib/trpc";
import { useCan } from "./session";
import { ErrorAlert } from "./status";

interface Transaction {
  id: string;
  status: string;
  deferral?: { claimsSuppliedAt: string | null } | null;
}

/**
 * What staff can do with an issuance transaction: cancel it while its offer is pending
 * (IssuanceTransactions_Cancel), supply the claims of a deferred one after a review
 * (IssuanceTransactions_SupplyClaims). Both are hidden from roles that lack the scope, and offered only
 * while the transaction is pending. What it issued is changed on the credential's own page (revoke,
 * suspend, reinstate), where its current state is shown.
 */
export function TransactionActions({ transaction }: { transaction: Transaction }) {
  const trpc = useTRPC();
  const canIssue = useCan("credentials.issue");
  const refresh = useRefresh("issuanceTransactions", "credentials", "dashboard");
  const cancel = useMutation(trpc.issuanceTransactions.cancel.mutationOptions({ onSuccess: refresh }));
  const pending = transaction.status === "pending";

  if (!canIssue) return null;
  // A refused cancellation (the wallet redeemed the offer meanwhile) still says why once it is no longer pending.
  if (!pending) return <ErrorAlert error={cancel.error} title="Could not cancel the offer" />;
  return (
    <div>
      <div className="actions">
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
      </div>
      {transaction.deferral?.claimsSuppliedAt === null && (
        <SupplyClaimsForm transactionId={transaction.id} onSupplied={refresh} />
      )}
      <ErrorAlert error={cancel.error} title="Could not cancel the offer" />
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
