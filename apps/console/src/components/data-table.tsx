"use client";
import type { ReactNode } from "react";
import type { Paged } from "../lib/paging";
import { Empty, ErrorAlert, Loading } from "./status";

export interface Column<T> {
  /** The column header; with `hideHeader` only screen readers get it (e.g. "Actions"). */
  header: string;
  hideHeader?: boolean;
  cell: (row: T) => ReactNode;
}

export interface Noun {
  one: string;
  other: string;
}

const count = (n: number, noun: Noun) => `${n} ${n === 1 ? noun.one : noun.other}`;

/**
 * "Load more" under a paged list, with a polite live region saying how many items are shown, so
 * screen-reader users hear that the list grew.
 */
export function Pager({
  shown,
  total,
  noun,
  hasMore,
  isLoadingMore,
  onMore,
  moreLabel = "Load more",
}: {
  shown: number;
  /** Known total (when every item is loaded and only part is shown). */
  total?: number;
  noun: Noun;
  hasMore: boolean;
  isLoadingMore: boolean;
  onMore: () => void;
  moreLabel?: string;
}) {
  const status =
    total !== undefined && total > shown
      ? `Showing ${shown} of ${count(total, noun)}.`
      : hasMore
        ? `Showing ${count(shown, noun)}; more are available.`
        : `Showing ${shown === 1 ? "the only" : `all ${shown}`} ${shown === 1 ? noun.one : noun.other}.`;
  return (
    <div className="pager">
      <p className="hint" role="status" aria-live="polite" data-testid="pager-status">
        {status}
      </p>
      {hasMore && (
        <button type="button" className="secondary small" onClick={onMore} disabled={isLoadingMore}>
          {isLoadingMore ? "Loading…" : moreLabel}
        </button>
      )}
    </div>
  );
}

/** A table of rows; columns given as `false` (e.g. actions the role cannot perform) are left out. */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  rowTestId,
  testId,
}: {
  caption: string;
  columns: (Column<T> | false)[];
  rows: T[];
  rowKey: (row: T) => string;
  rowTestId?: (row: T) => string;
  testId?: string;
}) {
  const shown = columns.filter((c): c is Column<T> => c !== false);
  return (
    <table data-testid={testId}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {shown.map((c) => (
            <th scope="col" key={c.header}>
              {c.hideHeader ? <span className="visually-hidden">{c.header}</span> : c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} data-testid={rowTestId?.(row)}>
            {shown.map((c) => (
              <td key={c.header}>{c.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A list page's table: loading, error, empty message, the rows loaded so far and the pager.
 * The rows stay visible when loading more fails (the error shows above them).
 */
export function PagedTable<T>({
  list,
  noun,
  empty,
  total,
  moreLabel,
  ...table
}: {
  list: Paged<T>;
  noun: Noun;
  empty: ReactNode;
  total?: number;
  moreLabel?: string;
  caption: string;
  columns: (Column<T> | false)[];
  rowKey: (row: T) => string;
  rowTestId?: (row: T) => string;
  testId?: string;
}) {
  if (list.isPending) return <Loading />;
  return (
    <>
      <ErrorAlert error={list.error} />
      {list.items.length === 0 ? (
        !list.error && <Empty>{empty}</Empty>
      ) : (
        <>
          <DataTable {...table} rows={list.items} />
          <Pager
            shown={list.items.length}
            total={total}
            noun={noun}
            hasMore={list.hasMore}
            isLoadingMore={list.isLoadingMore}
            onMore={list.loadMore}
            moreLabel={moreLabel}
          />
        </>
      )}
    </>
  );
}
