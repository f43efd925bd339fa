"use client";
import type { TStaffSession } from "@cred/contracts/staff";
import { useSearchParams } from "next/navigation";
import type { ComponentType, ReactNode } from "react";
import type { useUrlFilters } from "../lib/url-filters";
import { SubmitButton, TextField } from "./form-fields";
import { useCan } from "./session";
import { Empty, PageHeader } from "./status";

/**
 * A record list page: refused in words when the role lacks `scope`, otherwise the list keyed by the URL's
 * search string, so its filter form starts from the URL again after any navigation (e.g. the nav link).
 */
export function RecordListPage({
  scope,
  title,
  refusal,
  list: List,
}: {
  scope: TStaffSession["scopes"][number];
  title: string;
  refusal: string;
  list: ComponentType;
}) {
  const canRead = useCan(scope);
  const search = useSearchParams().toString();
  if (!canRead) {
    return (
      <>
        <PageHeader title={title} />
        <Empty>{refusal}</Empty>
      </>
    );
  }
  return <List key={search} />;
}

/** The filter card of a record list: its fields, then Apply and Clear (enabled while a filter is applied). */
export function FilterForm({
  id,
  filters,
  children,
}: {
  /** The heading's id, also the form's test id. */
  id: string;
  filters: Pick<ReturnType<typeof useUrlFilters>, "submit" | "clear" | "filtered">;
  children: ReactNode;
}) {
  return (
    <form onSubmit={filters.submit} className="card" aria-labelledby={id} data-testid={id}>
      <h2 id={id}>Filters</h2>
      <div className="grid">{children}</div>
      <div className="actions">
        <SubmitButton pending={false}>Apply filters</SubmitButton>
        <button type="button" className="secondary" onClick={filters.clear} disabled={!filters.filtered}>
          Clear filters
        </button>
      </div>
    </form>
  );
}

/** Two date fields for a day range; the second cannot be set before the first. */
export function DayRangeFields({
  labels,
  from,
  to,
  onFrom,
  onTo,
}: {
  labels: [from: string, to: string];
  from: string;
  to: string;
  onFrom: (value: string) => void;
  onTo: (value: string) => void;
}) {
  return (
    <>
      <TextField label={labels[0]} type="date" value={from} onChange={onFrom} />
      <TextField label={labels[1]} type="date" value={to} min={from || undefined} onChange={onTo} />
    </>
  );
}
