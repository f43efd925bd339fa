"use client";
import { ISSUANCE_STATUSES, type TListIssuanceTransactionsRequest } from "@cred/contracts/issuance";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { FilterField, SubmitButton, TextField } from "../../../components/form-fields";
import {
  ConfigurationAndIssuerFilters,
  IssuerCell,
  RecordLink,
  Time,
  useIssuerAndConfigurationChoices,
} from "../../../components/record-choices";
import { DayRangeFields, FilterForm, RecordListPage } from "../../../components/record-list";
import { Badge, PageHeader } from "../../../components/status";
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
  return (
    <RecordListPage
      scope="credentials.read"
      title="Transactions"
      refusal="Your role cannot read issuance transactions."
      list={TransactionList}
    />
  );
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
      <FilterForm id="transaction-filters" filters={filters}>
        <FilterField
          label="Status"
          allLabel="All statuses"
          value={draft.status as "" | (typeof ISSUANCE_STATUSES)[number]}
          onChange={set("status")}
          options={ISSUANCE_STATUSES}
        />
        <ConfigurationAndIssuerFilters
          choices={choices}
          configuration={draft.credentialConfiguration}
          issuerId={draft.issuerId}
          onConfiguration={set("credentialConfiguration")}
          onIssuerId={set("issuerId")}
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
        <DayRangeFields
          labels={["Created from (on or after)", "Created to (up to and including)"]}
          from={draft.createdFrom}
          to={draft.createdTo}
          onFrom={set("createdFrom")}
          onTo={set("createdTo")}
        />
      </FilterForm>
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
            cell: (t) => <RecordLink href={`/transactions/${t.id}`} id={t.id} />,
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
                <RecordLink href={`/credentials/${t.credentialId}`} id={t.credentialId} />
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
