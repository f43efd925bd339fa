"use client";
import {
  CLAIM_TYPES,
  type ClaimType,
  type TClaimDefinition,
} from "@cred/contracts/credential-configurations";

export interface ClaimRow {
  key: number;
  path: string;
  type: ClaimType;
  required: boolean;
  selectivelyDisclosable: boolean;
  label: string;
  /** What the table does not edit, kept as it was when the row came from an existing claim. */
  kept?: Pick<TClaimDefinition, "constraints" | "display">;
}

let nextKey = 1;
export const newClaimRow = (path = "", type: ClaimType = "string", required = false): ClaimRow => ({
  key: nextKey++,
  path,
  type,
  required,
  selectivelyDisclosable: true,
  label: "",
});

/** An existing claim as an editable row; its constraints and other locales' labels are kept. */
export function fromClaimDefinition(claim: TClaimDefinition): ClaimRow {
  return {
    key: nextKey++,
    path: claim.path.join("."),
    type: claim.type,
    required: claim.required,
    selectivelyDisclosable: claim.selectivelyDisclosable,
    label: claim.display?.find((d) => d.locale === "en")?.name ?? "",
    kept: { constraints: claim.constraints, display: claim.display },
  };
}

/** The row as the API's claim definition (a dotted path becomes a path array). */
export function toClaimDefinition(row: ClaimRow) {
  const otherLocales = (row.kept?.display ?? []).filter((d) => d.locale !== "en");
  const display = [...(row.label.trim() ? [{ locale: "en", name: row.label.trim() }] : []), ...otherLocales];
  return {
    path: row.path.split(".").map((s) => s.trim()),
    type: row.type,
    required: row.required,
    selectivelyDisclosable: row.selectivelyDisclosable,
    ...(display.length > 0 ? { display } : {}),
    ...(row.kept?.constraints ? { constraints: row.kept.constraints } : {}),
  };
}

/**
 * A zod error of a request with `claims` from these rows, split into messages by row (keyed by the
 * row's own key, so a message stays with its row when others are removed) and the rest.
 */
export function claimFormIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  rows: ClaimRow[],
) {
  const byRow = new Map<string, string[]>();
  const general: string[] = [];
  for (const issue of issues) {
    const [first, index] = issue.path;
    const row = first === "claims" && typeof index === "number" ? rows[index] : undefined;
    if (row) {
      const key = String(row.key);
      byRow.set(key, [...(byRow.get(key) ?? []), issue.message]);
    } else {
      general.push(`${issue.path.map(String).join(".") || "form"}: ${issue.message}`);
    }
  }
  return { byRow, general };
}

/**
 * Editable table of claims. `issues` maps "claims.<index>" to messages from the API's own zod schema,
 * so the same rules are shown here before anything is sent.
 */
export function ClaimEditor({
  rows,
  onChange,
  issues,
}: {
  rows: ClaimRow[];
  onChange: (rows: ClaimRow[]) => void;
  /** Messages by the row's `key` (as a string). */
  issues: Map<string, string[]>;
}) {
  const update = (key: number, patch: Partial<ClaimRow>) =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <fieldset>
      <legend>Claims</legend>
      <table className="claims-editor">
        <caption className="visually-hidden">Claims of the credential</caption>
        <thead>
          <tr>
            <th scope="col">Claim path</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Selectively disclosable</th>
            <th scope="col">Label (en)</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const rowIssues = issues.get(String(row.key)) ?? [];
            const errorId = `claim-${row.key}-errors`;
            return (
              <tr key={row.key}>
                <td>
                  <input
                    aria-label={`Claim ${index + 1} path`}
                    value={row.path}
                    placeholder="given_name or address.country"
                    aria-invalid={rowIssues.length > 0}
                    aria-describedby={rowIssues.length ? errorId : undefined}
                    onChange={(e) => update(row.key, { path: e.target.value })}
                  />
                  {rowIssues.length > 0 && (
                    <span id={errorId} className="field-error">
                      {rowIssues.join(" ")}
                    </span>
                  )}
                </td>
                <td>
                  <select
                    aria-label={`Claim ${index + 1} type`}
                    value={row.type}
                    onChange={(e) => update(row.key, { type: e.target.value as ClaimType })}
                  >
                    {CLAIM_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Claim ${index + 1} required`}
                    checked={row.required}
                    onChange={(e) => update(row.key, { required: e.target.checked })}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Claim ${index + 1} selectively disclosable`}
                    checked={row.selectivelyDisclosable}
                    onChange={(e) => update(row.key, { selectivelyDisclosable: e.target.checked })}
                  />
                </td>
                <td>
                  <input
                    aria-label={`Claim ${index + 1} label`}
                    value={row.label}
                    onChange={(e) => update(row.key, { label: e.target.value })}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Remove claim ${index + 1}`}
                    onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button type="button" className="secondary" onClick={() => onChange([...rows, newClaimRow()])}>
        Add claim
      </button>
    </fieldset>
  );
}

/** What is wrong with the form outside the table, and a pointer to the table's own messages. */
export function ClaimFormAlerts({
  general,
  rows,
  issues,
}: {
  general: string[];
  rows: ClaimRow[];
  issues: Map<string, string[]>;
}) {
  return (
    <>
      {general.length > 0 && (
        <div className="alert alert-error" role="alert">
          <strong>Fix these first:</strong>
          <ul>
            {general.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </div>
      )}
      {rows.some((row) => issues.has(String(row.key))) && (
        <div className="alert alert-error" role="alert">
          Some claims are not valid; see the messages in the table.
        </div>
      )}
    </>
  );
}
