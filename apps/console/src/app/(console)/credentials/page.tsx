"use client";
import { CREDENTIAL_STATES, type TListCredentialsRequest } from "@cred/contracts/credentials";
import { PagedTable } from "../../../components/data-table";
import { FilterField, TextField } from "../../../components/form-fields";
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
  return (
    <RecordListPage
      scope="credentials.read"
      title="Credentials"
      refusal="Your role cannot read credentials."
      list={CredentialList}
    />
  );
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
      <FilterForm id="credential-filters" filters={filters}>
        <FilterField
          label="Status"
          allLabel="All states"
          value={draft.status as "" | (typeof CREDENTIAL_STATES)[number]}
          onChange={set("status")}
          options={CREDENTIAL_STATES}
        />
        <ConfigurationAndIssuerFilters
          choices={choices}
          configuration={draft.credentialConfiguration}
          issuerId={draft.issuerId}
          onConfiguration={set("credentialConfiguration")}
          onIssuerId={set("issuerId")}
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
        <DayRangeFields
          labels={["Issued from (on or after)", "Issued to (up to and including)"]}
          from={draft.issuedFrom}
          to={draft.issuedTo}
          onFrom={set("issuedFrom")}
          onTo={set("issuedTo")}
        />
      </FilterForm>
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
            cell: (c) => <RecordLink href={`/credentials/${c.id}`} id={c.id} />,
          },
          { header: "Status", cell: (c) => <Badge value={c.status} /> },
          { header: "Configuration", cell: (c) => <code>{c.credentialConfiguration}</code> },
          {
            header: "Issuer",
            cell: (c) => <IssuerCell id={c.issuerId} name={choices.issuerName(c.issuerId)} />,
          },
          {
            header: "Transaction",
            cell: (c) => <RecordLink href={`/transactions/${c.transactionId}`} id={c.transactionId} />,
          },
          { header: "Expires", cell: (c) => <Time at={c.expiresAt} /> },
        ]}
      />
    </>
  );
}
