"use client";
import {
  DEFAULT_REFRESH_INTERVAL_SECONDS,
  MAX_REFRESH_INTERVAL_SECONDS,
  MIN_REFRESH_INTERVAL_SECONDS,
  type TTrustSource,
} from "@cred/contracts/trust-sources";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { ChoiceField, SubmitButton, TextField } from "../../../components/form-fields";
import { RecordLink, Time } from "../../../components/record-choices";
import { RecordListPage } from "../../../components/record-list";
import { useCan } from "../../../components/session";
import { Badge, ErrorAlert, PageHeader } from "../../../components/status";
import { useRefresh } from "../../../lib/refresh";
import { useResourcePages } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";
import { KIND_CHOICES, KIND_WORDS, pemBlocks } from "./trust-source-words";

export default function TrustSourcesPage() {
  return (
    <RecordListPage
      scope="trust-sources.read"
      title="Trust sources"
      refusal="Your role cannot read trust sources."
      list={TrustSourceList}
    />
  );
}

function TrustSourceList() {
  const canManage = useCan("trust-sources.manage");
  const list = useResourcePages("trustSources");
  return (
    <>
      <PageHeader title="Trust sources">
        ETSI trusted lists this environment trusts issuers and wallet providers through: fetched, verified
        against their signer certificates and refreshed on schedule. Verification policies and issuers name a
        trust source with a service type.
      </PageHeader>
      <PagedTable
        list={list}
        caption="Trust sources"
        noun={{ one: "trust source", other: "trust sources" }}
        empty="No trust sources yet."
        rowKey={(s) => s.id}
        rowTestId={(s) => `trust-source-${s.id}`}
        testId="trust-sources"
        columns={[
          {
            header: "Trust source",
            cell: (s) => (
              <>
                <RecordLink href={`/trust-sources/${s.id}`} id={s.id} />
                <div className="hint">{s.description ?? s.url}</div>
              </>
            ),
          },
          { header: "Kind", cell: (s) => KIND_WORDS[s.kind] },
          { header: "Status", cell: (s) => <StatusCell source={s} /> },
          { header: "Last refresh", cell: (s) => (s.lastRefreshAt ? <Time at={s.lastRefreshAt} /> : "—") },
          { header: "Next update (list)", cell: (s) => (s.nextUpdate ? <Time at={s.nextUpdate} /> : "—") },
          { header: "Next refresh", cell: (s) => <Time at={s.nextRefreshAt} /> },
        ]}
      />
      {canManage && <CreateTrustSourceForm />}
    </>
  );
}

/** The status badge, and why the last refresh failed when it did. */
function StatusCell({ source }: { source: TTrustSource }) {
  return (
    <>
      <Badge value={source.status} testId={`trust-source-status-${source.id}`} />
      {source.lastError && (
        <div className="hint">
          Last refresh failed: <code>{source.lastError.code}</code>
        </div>
      )}
    </>
  );
}

/** TrustSources_Create: the list is fetched and verified before it is stored; then its page opens. */
function CreateTrustSourceForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const refresh = useRefresh("trustSources");
  const [kind, setKind] = useState("");
  const [url, setUrl] = useState("");
  const [signers, setSigners] = useState("");
  const [minutes, setMinutes] = useState(String(DEFAULT_REFRESH_INTERVAL_SECONDS / 60));
  const [description, setDescription] = useState("");
  const create = useMutation(
    trpc.trustSources.create.mutationOptions({
      onSuccess: async (result) => {
        await refresh();
        router.push(`/trust-sources/${result.data.id}`);
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      kind: kind as TTrustSource["kind"],
      url: url.trim(),
      signerCertificates: pemBlocks(signers),
      refreshIntervalSeconds: Math.round(Number(minutes) * 60),
      description: description.trim() || null,
    });
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="create-trust-source">
      <h2 id="create-trust-source">Add a trust source</h2>
      <p className="hint">
        The list is fetched and its signature verified now; a list that cannot be fetched or does not verify
        is refused and nothing is stored. A LoTL&apos;s national lists are followed and verified with the
        signer certificates the LoTL gives for them.
      </p>
      <div className="grid">
        <ChoiceField label="Kind" value={kind} onChange={setKind} choices={KIND_CHOICES} />
        <TextField
          label="List URL (https)"
          type="url"
          required
          value={url}
          placeholder="https://ec.europa.eu/tools/lotl/eu-lotl.xml"
          onChange={setUrl}
        />
        <TextField
          label="Refresh every (minutes)"
          type="number"
          required
          min={MIN_REFRESH_INTERVAL_SECONDS / 60}
          max={MAX_REFRESH_INTERVAL_SECONDS / 60}
          value={minutes}
          onChange={setMinutes}
        >
          <span className="hint">Sooner when a list&apos;s NextUpdate comes first.</span>
        </TextField>
        <TextField label="Description (optional)" value={description} onChange={setDescription} />
      </div>
      <label>
        Signer certificates (PEM; one or more)
        <textarea required rows={8} value={signers} onChange={(e) => setSigners(e.target.value)} />
      </label>
      <ErrorAlert error={create.error} title="Could not add the trust source" />
      <SubmitButton pending={create.isPending} pendingLabel="Fetching and verifying…">
        Add trust source
      </SubmitButton>
    </form>
  );
}
