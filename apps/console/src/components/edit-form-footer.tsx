"use client";
import type { ReactNode } from "react";
import { SubmitButton } from "./form-fields";
import { type FormIssue, FormIssues } from "./form-issues";
import { ErrorAlert, Success } from "./status";

/**
 * The end of an edit form (a JSON merge patch of what changed): the contract's issues, the API's error, the
 * success line, then Save (enabled once something changed) and Close.
 */
export function EditFormFooter({
  noun,
  issues,
  update,
  changed,
  saved,
  onDone,
}: {
  /** What is edited, in words ("organisation", "webhook"). */
  noun: string;
  issues: FormIssue[];
  update: { error: unknown; isPending: boolean; isSuccess: boolean };
  changed: boolean;
  /** The success line, once saved. */
  saved: ReactNode;
  onDone: () => void;
}) {
  return (
    <>
      <FormIssues issues={issues} title={`Fix the ${noun} first`} />
      <ErrorAlert error={update.error} title={`Could not update the ${noun}`} />
      {update.isSuccess && <Success>{saved}</Success>}
      <div className="actions">
        <SubmitButton pending={update.isPending} disabled={!changed} pendingLabel="Saving…">
          Save {noun}
        </SubmitButton>
        <button type="button" className="secondary" onClick={onDone}>
          Close
        </button>
      </div>
    </>
  );
}
