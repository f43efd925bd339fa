"use client";
import {
  MAX_REFRESH_INTERVAL_SECONDS,
  MIN_REFRESH_INTERVAL_SECONDS,
  type TTrustSource,
  ZUpdateTrustSourceRequest,
} from "@cred/contracts/trust-sources";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { EditFormFooter } from "../../../../components/edit-form-footer";
import { TextField } from "../../../../components/form-fields";
import { type FormIssue, formIssuesOf } from "../../../../components/form-issues";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC } from "../../../../lib/trpc";
import { pemBlocks } from "../trust-source-words";

const samePems = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((pem, i) => pem.trim() === b[i]?.trim());

/**
 * TrustSources_Update (a JSON merge patch): signer certificates, refresh interval and description; only
 * what changed is sent. The kind and URL are fixed (another list is another trust source). New signer
 * certificates count from the next refresh on; the last good copy stays in use until then.
 */
export function TrustSourceEditForm({ source, onDone }: { source: TTrustSource; onDone: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefresh("trustSources");
  const update = useMutation(trpc.trustSources.update.mutationOptions({ onSuccess: refresh }));
  const [signers, setSigners] = useState(source.signerCertificates.map((pem) => pem.trim()).join("\n"));
  const [minutes, setMinutes] = useState(String(source.refreshIntervalSeconds / 60));
  const [description, setDescription] = useState(source.description ?? "");
  const [issues, setIssues] = useState<FormIssue[]>([]);

  const signerCertificates = pemBlocks(signers);
  const refreshIntervalSeconds = Math.round(Number(minutes) * 60);
  const changes = {
    ...(!samePems(signerCertificates, source.signerCertificates) && { signerCertificates }),
    ...(refreshIntervalSeconds !== source.refreshIntervalSeconds && { refreshIntervalSeconds }),
    ...(description.trim() !== (source.description ?? "") && { description: description.trim() || null }),
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = ZUpdateTrustSourceRequest.safeParse({ trustSourceId: source.id, ...changes });
    if (!parsed.success) {
      setIssues(formIssuesOf(parsed.error.issues));
      return;
    }
    setIssues([]);
    update.mutate(parsed.data);
  };

  return (
    <form onSubmit={submit} className="card" aria-labelledby="edit-trust-source" noValidate>
      <h2 id="edit-trust-source">Edit trust source</h2>
      <p className="hint">
        The kind and URL stay as they are: another list is another trust source. New signer certificates are
        used from the next refresh on (Refresh now to check them at once); the last good copy stays in use
        until then.
      </p>
      <div className="grid">
        <TextField
          label="Refresh every (minutes)"
          type="number"
          required
          min={MIN_REFRESH_INTERVAL_SECONDS / 60}
          max={MAX_REFRESH_INTERVAL_SECONDS / 60}
          value={minutes}
          onChange={setMinutes}
        >
          <span className="hint">
            {MIN_REFRESH_INTERVAL_SECONDS / 60} to {MAX_REFRESH_INTERVAL_SECONDS / 60} minutes; sooner when a
            list&apos;s NextUpdate comes first.
          </span>
        </TextField>
        <TextField label="Description (optional)" value={description} onChange={setDescription} />
      </div>
      <label>
        Signer certificates (PEM; one or more)
        <textarea required rows={8} value={signers} onChange={(e) => setSigners(e.target.value)} />
      </label>
      <EditFormFooter
        noun="trust source"
        issues={issues}
        update={update}
        changed={Object.keys(changes).length > 0}
        saved={
          update.isSuccess && (
            <>Trust source {update.data.data.description ?? update.data.data.url} updated.</>
          )
        }
        onDone={onDone}
      />
    </form>
  );
}
