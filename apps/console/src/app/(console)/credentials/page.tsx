"use client";
import { CREDENTIAL_STATES, type TListCredentialsRequest } from "@cred/contracts/credentials";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
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
 * The filters as the URL holds them (`/credentials?status=suspended&transactionId=itx_…`); the dates are
 * calendar days in the viewer's time zone.
 */
const FILTERS = [
  "status",
  "credentialConfiguration",
  "issuerId",
  "transactionId",
  "externalSubjectReference",
  "issuedFrom",
  "issuedTo",
] as const;
type Filters = FilterValues<(typeof FILTERS)[number]>;

/** Credentials_List's input for these filters: `issuedTo` up to and including its day. */
function toQuery(f: Filters): Omit<TListCredentialsRequest, "limit" | "cursor"> {
  const { from, to } = dayRange(f.issuedFrom, f.issuedTo);
  return {
    ...(f.status && { status: f.status as (typeof CREDENTIAL_STATES)[number] }),
    ...(f.credentialConfiguration && { credentialConfiguration: f.credentialConfiguration }),
    ...(f.issuerId && { issuerId: f.issuerId }),
    ...(f.transactionId && { transactionId: f.transactionId }),
    ...(f.externalSubjectReference && { externalSubjectReference: f.externalSubjectReference }),
    ...(from && { issuedFrom: from }),
    ...(to && { issuedTo: to }),
  };
}

export default function CredentialsPage() {
  const canRead = useCan("credentials.read");
  const search = useSearchParams().toString();
  if (!canRead) {
    return (
      <>
        <PageHeader title="Credentials" />
        <Empty>Your role cannot read credentials.</Empty>
      </>
    );
  }
  // Keyed by the URL's filters: the form starts from them again after any navigation (e.g. the nav link).
  return <CredentialList key={search} />;
}

function CredentialList() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const pageSize = usePageSize();
  const choices = useIssuerAndConfigurationChoices();
  const filters = useUrlFilters(FILTERS, {
    status: oneOf(CREDENTIAL_STATES),
    issuedFrom: isDay,
    issuedTo: isDay,
  });
  const { draft, set } = filters;
  const query = toQuery(filters.applied);
  const list = useCursorPages({
    queryKey: trpc.credentials.list.infiniteQueryKey({ limit: pageSize, ...query }),
    fetchPage: (cursor, signal) =>
      client.credentials.list.query({ limit: pageSize, cursor, ...query }, { signal }),
  });

  return (
    <>
      <PageHeader title="Credentials">
        The credentials issued in this environment, newest first, with their state (never their claims, which
        are not kept). Open one to suspend, reinstate or revoke it.
      </PageHeader>
      <form
        onSubmit={filters.submit}
        className="card"
        aria-labelledby="credential-filters"
        data-testid="credential-filters"
      >
        <h2 id="credential-filters">Filters</h2>
        <div className="grid">
          <FilterField
            label="Status"
            allLabel="All states"
            value={draft.status as "" | (typeof CREDENTIAL_STATES)[number]}
            onChange={set("status")}
            options={CREDENTIAL_STATES}
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
            label="Transaction id"
            value={draft.transactionId}
            onChange={set("transactionId")}
            placeholder="itx_…"
            maxLength={64}
          />
          <TextField
            label="Subject reference"
            value={draft.externalSubjectReference}
            onChange={set("externalSubjectReference")}
            maxLength={200}
          />
          <TextField
            label="Issued from (on or after)"
            type="date"
            value={draft.issuedFrom}
            onChange={set("issuedFrom")}
          />
          <TextField
            label="Issued to (up to and including)"
            type="date"
            value={draft.issuedTo}
            min={draft.issuedFrom || undefined}
            onChange={set("issuedTo")}
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
        caption="Credentials, newest first"
        noun={{ one: "credential", other: "credentials" }}
        empty={filters.filtered ? "No credentials match these filters." : "No credentials issued yet."}
        rowKey={(c) => c.id}
        rowTestId={(c) => `credential-${c.id}`}
        testId="credentials"
        columns={[
          { header: "Issued", cell: (c) => <Time at={c.issuedAt} /> },
          {
            header: "Credential",
            cell: (c) => (
              <Link href={`/credentials/${c.id}`}>
                <code>{c.id}</code>
              </Link>
            ),
          },
          { header: "Status", cell: (c) => <Badge value={c.status} /> },
          { header: "Configuration", cell: (c) => <code>{c.credentialConfiguration}</code> },
          {
            header: "Issuer",
            cell: (c) => <IssuerCell id={c.issuerId} name={choices.issuerName(c.issuerId)} />,
          },
          {
            header: "Transaction",
            cell: (c) => (
              <Link href={`/transactions/${c.transactionId}`}>
                <code>{c.transactionId}</code>
              </Link>
            ),
          },
          { header: "Expires", cell: (c) => <Time at={c.expiresAt} /> },
        ]}
      />
    </>
  );
}
