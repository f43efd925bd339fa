"use client";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SubmitButton, TextField } from "../../../components/form-fields";
import { Badge, ErrorAlert, Loading, PageHeader } from "../../../components/status";
import { TransactionActions } from "../../../components/transaction-actions";
import { useTRPC } from "../../../lib/trpc";

/**
 * Find an issuance transaction by its id (from the API response, a webhook or the playground) to see
 * where it stands, cancel its offer while pending, or revoke the credential it issued.
 */
export default function CredentialsPage() {
  const trpc = useTRPC();
  const [input, setInput] = useState("");
  const [transactionId, setTransactionId] = useState("");
  const transaction = useQuery({
    ...trpc.issuanceTransactions.get.queryOptions({ transactionId }),
    enabled: transactionId !== "",
  });
  const tx = transaction.data?.data;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTransactionId(input.trim());
  };

  return (
    <>
      <PageHeader title="Credentials">
        Look up an issuance transaction by its id to see its state, cancel a pending offer, or revoke the
        credential it issued. Revocation is immediate and cannot be undone.
      </PageHeader>
      <form onSubmit={submit} className="card" aria-labelledby="lookup-title">
        <h2 id="lookup-title">Find an issuance transaction</h2>
        <TextField
          label="Transaction id"
          name="transactionId"
          required
          placeholder="itx_…"
          value={input}
          onChange={setInput}
        />
        <SubmitButton pending={transaction.isFetching}>Find</SubmitButton>
      </form>
      {transaction.isFetching && !tx && <Loading />}
      <ErrorAlert error={transaction.error} title="Could not find the transaction" />
      {tx && !transaction.isError && (
        <section className="card" aria-labelledby="found-title" data-testid="transaction">
          <h2 id="found-title">
            Transaction <code>{tx.id}</code>
          </h2>
          <p>
            Status <Badge value={tx.status} testId="transaction-status" />
          </p>
          <dl className="facts">
            <dt>Credential configuration</dt>
            <dd>{tx.credentialConfiguration}</dd>
            <dt>Issuer</dt>
            <dd>
              <code>{tx.issuerId}</code>
            </dd>
            <dt>Created</dt>
            <dd>{new Date(tx.createdAt).toLocaleString()}</dd>
            <dt>{tx.status === "pending" ? "Offer expires" : "Offer expired or closed"}</dt>
            <dd>{new Date(tx.expiresAt).toLocaleString()}</dd>
            {tx.deferral && (
              <>
                <dt>Claims (deferred issuance)</dt>
                <dd data-testid="deferral-claims">
                  {tx.deferral.claimsSuppliedAt
                    ? `supplied ${new Date(tx.deferral.claimsSuppliedAt).toLocaleString()}`
                    : "awaited"}
                </dd>
                <dt>Wallet waiting since</dt>
                <dd>
                  {tx.deferral.walletWaitingSince
                    ? new Date(tx.deferral.walletWaitingSince).toLocaleString()
                    : "not asked yet"}
                </dd>
              </>
            )}
            {tx.credentialId && (
              <>
                <dt>Credential</dt>
                <dd>
                  <code>{tx.credentialId}</code>
                </dd>
              </>
            )}
            {tx.externalSubjectReference && (
              <>
                <dt>Subject reference</dt>
                <dd>{tx.externalSubjectReference}</dd>
              </>
            )}
          </dl>
          <TransactionActions transaction={tx} />
        </section>
      )}
    </>
  );
}
