"use client";
import type { ReactNode } from "react";
import { describeError } from "../lib/errors";

/**
 * A failed call: the API's message, error code and request id, announced to screen readers. With
 * `onRetry` (a query to read again, e.g. after the API was down), a Retry button, disabled while
 * `retrying`.
 */
export function ErrorAlert({
  error,
  title = "The request failed",
  onRetry,
  retrying = false,
}: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
  retrying?: boolean;
}) {
  if (!error) return null;
  const d = describeError(error);
  return (
    <div className="alert alert-error" role="alert">
      <strong>{title}:</strong> {d.message}
      {d.details.length > 0 && (
        <ul>
          {d.details.map((detail) => (
            <li key={`${detail.target}:${detail.message}`}>
              <code>{detail.target}</code>: {detail.message}
            </li>
          ))}
        </ul>
      )}
      <p className="meta">
        {d.code && (
          <>
            Code <code>{d.code}</code>
            {" · "}
          </>
        )}
        Request id <code data-testid="request-id">{d.requestId ?? "unknown"}</code>
      </p>
      {onRetry && (
        <button type="button" className="secondary" onClick={onRetry} disabled={retrying}>
          {retrying ? "Retrying…" : "Retry"}
        </button>
      )}
    </div>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Success({ children }: { children: ReactNode }) {
  return (
    <div className="alert alert-success" role="status">
      {children}
    </div>
  );
}

export function Badge({ value, testId }: { value: string; testId?: string }) {
  return (
    <span className={`badge badge-${value}`} data-testid={testId}>
      {value}
    </span>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children && <p className="lead">{children}</p>}
    </header>
  );
}
