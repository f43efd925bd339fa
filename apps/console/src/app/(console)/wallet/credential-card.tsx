"use client";
import { useQuery } from "@tanstack/react-query";
import { decodeCredential, subjectClaims } from "../../../lib/wallet/sd-jwt";
import { fetchStatus } from "../../../lib/wallet/status";
import type { StoredCredential } from "../../../lib/wallet/store";
import { WalletAlert } from "./wallet-error";

function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

const epoch = (value: unknown) =>
  typeof value === "number" ? new Date(value * 1000).toLocaleString() : undefined;

/** One credential: its claims (disclosures applied), issuer, type, validity and live status. */
export function CredentialCard({
  credential,
  onRemove,
}: {
  credential: StoredCredential;
  onRemove: () => Promise<void>;
}) {
  const decoded = useQuery({
    queryKey: ["wallet", "decoded", credential.id],
    queryFn: () => decodeCredential(credential.compact),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const claims = decoded.data?.claims;
  const status = useQuery({
    queryKey: ["wallet", "status", credential.id],
    queryFn: () => fetchStatus(claims ?? {}, credential.credentialIssuer),
    enabled: !!claims,
    refetchOnWindowFocus: true,
  });
  const title = credential.displayName ?? credential.configurationId;
  return (
    <article className="card wallet-card" aria-label={`Credential ${title}`} data-testid="wallet-credential">
      <header className="wallet-card-header">
        <h3>{title}</h3>
        <span aria-live="polite">
          Status{" "}
          <span className={`badge badge-${status.data ?? "unknown"}`} data-testid="wallet-credential-status">
            {status.isPending ? "checking…" : status.isError ? "unknown" : status.data}
          </span>
        </span>
      </header>
      <p className="hint">
        Issued by <strong>{credential.issuerName ?? credential.credentialIssuer}</strong>
      </p>
      <WalletAlert error={decoded.error} title="Could not read the credential" />
      <WalletAlert error={status.error} title="Could not check the status" />
      {claims && (
        <>
          <table data-testid="wallet-claims">
            <caption className="visually-hidden">Claims of {title}</caption>
            <tbody>
              {Object.entries(subjectClaims(claims)).map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>{show(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <details>
            <summary>Details</summary>
            <dl className="facts">
              <dt>Type (vct)</dt>
              <dd>
                <code>{show(claims.vct)}</code>
              </dd>
              <dt>Issuer</dt>
              <dd>
                <code>{show(claims.iss)}</code>
              </dd>
              {epoch(claims.iat) && (
                <>
                  <dt>Issued</dt>
                  <dd>{epoch(claims.iat)}</dd>
                </>
              )}
              {epoch(claims.exp) && (
                <>
                  <dt>Expires</dt>
                  <dd>{epoch(claims.exp)}</dd>
                </>
              )}
              <dt>Selectively disclosable claims</dt>
              <dd>{decoded.data?.disclosureCount ?? 0}</dd>
              <dt>Received</dt>
              <dd>{new Date(credential.receivedAt).toLocaleString()}</dd>
            </dl>
          </details>
        </>
      )}
      <p>
        <button type="button" className="secondary" onClick={() => void status.refetch()}>
          Check status
        </button>{" "}
        <button type="button" className="secondary" onClick={() => void onRemove()}>
          Remove
        </button>
      </p>
    </article>
  );
}
