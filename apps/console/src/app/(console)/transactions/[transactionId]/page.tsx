"use client";
import type { TIssuanceTransaction } from "@cred/contracts/issuance";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { PagedTable } from "../../../../components/data-table";
import { QrCode } from "../../../../components/qr-code";
import { IssuerCell, Time, useIssuerAndConfigurationChoices } from "../../../../components/record-choices";
import { useCan } from "../../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader } from "../../../../components/status";
import { TransactionActions } from "../../../../components/transaction-actions";
import { unpaged } from "../../../../lib/paging";
import { pollWhilePending } from "../../../../lib/polling";
import { useTRPC } from "../../../../lib/trpc";
import { routeParam } from "../../../../lib/url-filters";

export default function TransactionPage() {
  const { transactionId } = useParams<{ transactionId: string }>();
  const trpc = useTRPC();
  const canRead = useCan("credentials.read");
  const transaction = useQuery({
    ...trpc.issuanceTransactions.get.queryOptions({ transactionId: routeParam(transactionId) }),
    enabled: canRead,
    // While pending, a wallet may redeem the offer at any moment: follow it.
    refetchInterval: pollWhilePending,
  });

  const back = (
    <p>
      <Link href="/transactions">← Transactions</Link>
    </p>
  );
  if (!canRead)
    return (
      <>
        {back}
        <PageHeader title="Transaction" />
        <Empty>Your role cannot read issuance transactions.</Empty>
      </>
    );
  if (transaction.isPending) return <Loading />;
  if (transaction.isError)
    return (
      <>
        {back}
        <PageHeader title="Transaction" />
        <ErrorAlert error={transaction.error} title="Could not load the transaction" />
      </>
    );
  const tx = transaction.data.data;
  return (
    <>
      {back}
      <PageHeader title="Transaction">
        <code>{tx.id}</code> · <Badge value={tx.status} testId="transaction-status" />
      </PageHeader>
      <section className="card" aria-labelledby="transaction-facts" data-testid="transaction">
        <h2 id="transaction-facts">Where it stands</h2>
        <TransactionFacts tx={tx} />
        <TransactionActions transaction={tx} />
      </section>
      {tx.status === "pending" && <PendingOffer tx={tx} />}
      <IssuedCredentials transactionId={tx.id} />
    </>
  );
}

/**
 * The transaction's facts. The offer's expiry is shown only while the offer is pending: once it was
 * redeemed, cancelled or ran out, that time no longer says anything about the transaction (and read as
 * "expires" beside "completed" it misled people), so its end is shown instead.
 */
function TransactionFacts({ tx }: { tx: TIssuanceTransaction }) {
  const { issuerName } = useIssuerAndConfigurationChoices();
  return (
    <dl className="facts">
      <dt>Transaction id</dt>
      <dd>
        <code data-testid="transaction-id">{tx.id}</code>
      </dd>
      <dt>Credential configuration</dt>
      <dd>
        <code>{tx.credentialConfiguration}</code>
      </dd>
      <dt>Issuer</dt>
      <dd>
        <IssuerCell id={tx.issuerId} name={issuerName(tx.issuerId)} />
      </dd>
      <dt>Created</dt>
      <dd>
        <Time at={tx.createdAt} />
      </dd>
      {tx.status === "pending" && (
        <>
          <dt>Offer expires</dt>
          <dd data-testid="offer-expires">
            <Time at={tx.expiresAt} />
          </dd>
        </>
      )}
      {tx.status === "completed" && tx.completedAt && (
        <>
          <dt>Completed</dt>
          <dd>
            <Time at={tx.completedAt} />
          </dd>
        </>
      )}
      {tx.status === "cancelled" && tx.cancelledAt && (
        <>
          <dt>Cancelled</dt>
          <dd>
            <Time at={tx.cancelledAt} />
          </dd>
        </>
      )}
      {tx.status === "expired" && (
        <>
          <dt>Outcome</dt>
          <dd>The offer was not redeemed in time.</dd>
        </>
      )}
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
      <dt>Subject reference</dt>
      <dd>{tx.externalSubjectReference ?? "—"}</dd>
      <dt>Callback reference</dt>
      <dd>{tx.callbackReference ?? "—"}</dd>
    </dl>
  );
}

/** A pending transaction's offer: the link a wallet opens (only for roles that may issue) as a QR code. */
function PendingOffer({ tx }: { tx: TIssuanceTransaction }) {
  return (
    <section className="card" aria-labelledby="offer-title" data-testid="pending-offer">
      <h2 id="offer-title">Offer</h2>
      {tx.credentialOffer ? (
        <>
          <p className="hint">
            Whoever holds this link can claim the credential until <Time at={tx.expiresAt} />: hand it only to
            its holder.
          </p>
          <QrCode value={tx.credentialOffer} label="QR code of the credential offer" />
        </>
      ) : (
        <Empty>The offer link is shown only to roles that may issue credentials.</Empty>
      )}
    </section>
  );
}

/**
 * The credentials the transaction issued (a batch's copies, and those of further requests with its access
 * token), each linking to its page.
 */
function IssuedCredentials({ transactionId }: { transactionId: string }) {
  const trpc = useTRPC();
  const credentials = useQuery(trpc.credentials.list.queryOptions({ limit: 100, transactionId }));
  return (
    <section className="card" aria-labelledby="issued-title">
      <h2 id="issued-title">Credentials issued</h2>
      <PagedTable
        list={unpaged(credentials)}
        caption="Credentials issued by this transaction"
        noun={{ one: "credential", other: "credentials" }}
        empty="None yet: a credential is issued when a wallet redeems the offer."
        rowKey={(c) => c.id}
        rowTestId={(c) => `credential-${c.id}`}
        testId="transaction-credentials"
        columns={[
          {
            header: "Credential",
            cell: (c) => (
              <Link href={`/credentials/${c.id}`}>
                <code>{c.id}</code>
              </Link>
            ),
          },
          { header: "Status", cell: (c) => <Badge value={c.status} /> },
          { header: "Issued", cell: (c) => <Time at={c.issuedAt} /> },
          { header: "Expires", cell: (c) => <Time at={c.expiresAt} /> },
        ]}
      />
    </section>
  );
}
