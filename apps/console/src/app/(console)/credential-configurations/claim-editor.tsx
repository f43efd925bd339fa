"use client";
import {
  CLAIM_TYPES,
  type ClaimType,
} from "@cred/core/credential-configurations/credential-configuration.schema";

export interface ClaimRow {
  key: number;
  path: string;
  type: ClaimType;
  required: boolean;
  selectivelyDisclosable: boolean;
  label: string;
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

/** The row as the API's claim definition (a dotted path becomes a path array). */
export function toClaimDefinition(row: ClaimRow) {
  return {
    path: row.path.split(".").map((s) => s.trim()),
    type: row.type,
    required: row.required,
    selectivelyDisclosable: row.selectivelyDisclosable,
    ...(row.label.trim() ? { display: [{ locale: "en", name: row.label.trim() }] } : {}),
  };
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
