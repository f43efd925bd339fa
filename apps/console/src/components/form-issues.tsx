"use client";

/** A zod issue as a form shows it: where (a dotted path, or the form) and what is wrong. */
export interface FormIssue {
  target: string;
  message: string;
}

export function formIssuesOf(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): FormIssue[] {
  return issues.map((issue) => ({
    target: issue.path.map(String).join(".") || "form",
    message: issue.message,
  }));
}

/** What the shared contract refused before anything was sent, in the shape of the server's details. */
export function FormIssues({ issues, title }: { issues: FormIssue[]; title: string }) {
  if (issues.length === 0) return null;
  return (
    <div className="alert alert-error" role="alert">
      <strong>{title}:</strong>
      <ul>
        {issues.map((issue) => (
          <li key={`${issue.target}:${issue.message}`}>
            <code>{issue.target}</code>: {issue.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
