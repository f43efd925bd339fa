"use client";
import { ISSUANCE_STATUSES, type TListIssuanceTransactionsRequest } from "@cred/contracts/issuance";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { FilterField, SubmitButton, TextField } from "../../../components/form-fields";
import {
  ChoiceFilter,
  IssuerCell,
  Time,
  useIssuerAndConfigurationChoices,
} from "../../../components/record-choices";
import { useCan } from "../../../components/session";
import { Badge, Empty, PageHeader } from "../../../components/status";
import { useCursorPages, usePageSize } from "../../../lib/paging";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";
import { dayRange, type FilterValues, isDay, oneOf, useUrlFilters } from "../../../lib/url-filters";

/**
 * The filters as the URL holds them (`/transactions?status=completed&createdFrom=2026-11-01`); the dates
 * are calendar days in the viewer's time zone.
 */
const FILTERS = [
  "status",
  "credentialConfiguration",
  "issuerId",
  "createdFrom",
  "createdTo",
  "externalSubjectReference",
  "callbackReference",
] as const;
type Filters = FilterValues<(typeof FILTERS)[number]>;

/** IssuanceTransactions_List's input for these filters: `createdTo` up to and including its day. */
function toQuery(f: Filters): Omit<TListIssuanceTransactionsRequest, "limit" | "cursor"> {
  const { from, to } = dayRange(f.createdFrom, f.createdTo);
  return {
    ...(f.status && { status: f.status as (typeof ISSUANCE_STATUSES)[number] }),
    ...(f.credentialConfiguration && { credentialConfiguration: f.credentialConfiguration }),
    ...(f.issuerId && { issuerId: f.issuerId }),
    ...(from && { createdFrom: from }),
    ...(to && { createdTo: to }),
    ...(f.externalSubjectReference && { externalSubjectReference: f.externalSubjectReference }),
    ...(f.callbackReference && { callbackReference: f.callbackReference }),
  };
}

export default function TransactionsPage() {
  const canRead = useCan("credentials.read");
  const search = useSearchParams().toString();
  if (!canRead) {
    return (
      <>
        <PageHeader title="Transactions" />
        <Empty>Your role cannot read issuance transactions.</Empty>
      </>
    );
  }
  // Keyed by the URL's filters: the form starts from them again after any navigation (e.g. the nav link).
  return <TransactionList key={search} />;
}

function TransactionList() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const pageSize = usePageSize();
  const choices = useIssuerAndConfigurationChoices();
  const filters = useUrlFilters(FILTERS, {
    status: oneOf(ISSUANCE_STATUSES),
    createdFrom: isDay,
    createdTo: isDay,
  });
  const { draft, set } = filters;
  const query = toQuery(filters.applied);
  const list = useCursorPages({
    queryKey: trpc.issuanceTransactions.list.infiniteQueryKey({ limit: pageSize, ...query }),
    fetchPage: (cursor, signal) =>
      client.issuanceTransactions.list.query({ limit: pageSize, cursor, ...query }, { signal }),
  });

  return (
    <>
      <PageHeader title="Transactions">
        Issuance transactions (offers and their outcome), newest first. Open one for its offer while it is
        pending, the credentials it issued, and what can still be done with it.
      </PageHeader>
      <FindTransaction />
      <form
        onSubmit={filters.submit}
        className="card"
        aria-labelledby="transaction-filters"
        data-testid="transaction-filters"
      >
        <h2 id="transaction-filters">Filters</h2>
        <div className="grid">
          <FilterField
            label="Status"
            allLabel="All statuses"
            value={draft.status as "" | (typeof ISSUANCE_STATUSES)[number]}
            onChange={set("status")}
            options={ISSUANCE_STATUSES}
          />
          <ChoiceFilter
            label="Credential configuration"
            allLabel="All configurations"
            value={draft.credentialConfiguration}
            onChange={set("credentialConfiguration")}
            choices={choices.configurations}
          />
          <ChoiceFilter
            label="Issuer"
            allLabel="All issuers"
            value={draft.issuerId}
            onChange={set("issuerId")}
            choices={choices.issuers}
          />
          <TextField
            label="Subject reference"
            value={draft.externalSubjectReference}
            onChange={set("externalSubjectReference")}
            maxLength={200}
          />
          <TextField
            label="Callback reference"
            value={draft.callbackReference}
            onChange={set("callbackReference")}
            maxLength={200}
          />
          <TextField
            label="Created from (on or after)"
            type="date"
            value={draft.createdFrom}
            onChange={set("createdFrom")}
          />
          <TextField
            label="Created to (up to and including)"
            type="date"
            value={draft.createdTo}
            min={draft.createdFrom || undefined}
            onChange={set("createdTo")}
          />
        </div>
        <div className="actions">
          <SubmitButton pending={false}>Apply filters</SubmitButton>
          <button type="button" className="secondary" onClick={filters.clear} disabled={!filters.filtered}>
            Clear filters
          </button>
        </div>
      </form>
      <PagedTable
        list={list}
        caption="Issuance transactions, newest first"
        noun={{ one: "transaction", other: "transactions" }}
        empty={filters.filtered ? "No transactions match these filters." : "No issuance transactions yet."}
        rowKey={(t) => t.id}
        rowTestId={(t) => `transaction-${t.id}`}
        testId="transactions"
        columns={[
          { header: "Created", cell: (t) => <Time at={t.createdAt} /> },
          {
            header: "Transaction",
            cell: (t) => (
              <Link href={`/transactions/${t.id}`}>
                <code>{t.id}</code>
              </Link>
            ),
          },
          { header: "Status", cell: (t) => <Badge value={t.status} /> },
          { header: "Configuration", cell: (t) => <code>{t.credentialConfiguration}</code> },
          {
            header: "Issuer",
            cell: (t) => <IssuerCell id={t.issuerId} name={choices.issuerName(t.issuerId)} />,
          },
          { header: "Subject reference", cell: (t) => t.externalSubjectReference ?? "—" },
          { header: "Callback reference", cell: (t) => t.callbackReference ?? "—" },
          {
            header: "Credential",
            cell: (t) =>
              t.credentialId ? (
                <Link href={`/credentials/${t.credentialId}`}>
                  <code>{t.credentialId}</code>
                </Link>
              ) : (
                "—"
              ),
          },
        ]}
      />
    </>
  );
}

/** Opens one transaction by its id (from an API response, a webhook or a support request). */
function FindTransaction() {
  const router = useRouter();
  const [id, setId] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (id.trim()) router.push(`/transactions/${encodeURIComponent(id.trim())}`);
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="find-transaction">
      <h2 id="find-transaction">Open a transaction by id</h2>
      <TextField label="Transaction id" required placeholder="itx_…" value={id} onChange={setId} />
      <SubmitButton pending={false}>Open</SubmitButton>
    </form>
  );
}
