"use client";
import type { TTrustSource, TTrustSourceRefresh } from "@cred/contracts/trust-sources";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { useState } from "react";
import { DataTable, PagedTable } from "../../../../components/data-table";
import { FilterField } from "../../../../components/form-fields";
import { Time } from "../../../../components/record-choices";
import { useCan } from "../../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader, Success } from "../../../../components/status";
import { useCursorPages, usePageSize } from "../../../../lib/paging";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC, useTRPCClient } from "../../../../lib/trpc";
import { routeParam } from "../../../../lib/url-filters";
import { KIND_WORDS, STATUS_WORDS, shortServiceType, shortStatus } from "../trust-source-words";
import { TrustSourceEditForm } from "./trust-source-edit-form";

export default function TrustSourcePage() {
  const { trustSourceId } = useParams<{ trustSourceId: string }>();
  const id = routeParam(trustSourceId);
  const trpc = useTRPC();
  const router = useRouter();
  const canRead = useCan("trust-sources.read");
  const canManage = useCan("trust-sources.manage");
  const source = useQuery({ ...trpc.trustSources.get.queryOptions({ trustSourceId: id }), enabled: canRead });
  const refreshQueries = useRefresh("trustSources");
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const refresh = useMutation(
    trpc.trustSources.refresh.mutationOptions({
      onSuccess: async () => {
        setNotice("The lists were fetched and verified again.");
        await refreshQueries();
      },
      // A refused refresh is recorded (lastError, status): show it.
      onError: async () => {
        setNotice(null);
        await refreshQueries();
      },
    }),
  );
  const remove = useMutation(
    trpc.trustSources.delete.mutationOptions({
      onSuccess: async () => {
        await refreshQueries();
        router.push("/trust-sources");
      },
    }),
  );

  const back = (
    <p>
      <Link href="/trust-sources">← Trust sources</Link>
    </p>
  );
  if (!canRead)
    return (
      <>
        {back}
        <PageHeader title="Trust source" />
        <Empty>Your role cannot read trust sources.</Empty>
      </>
    );
  if (source.isPending) return <Loading />;
  if (source.isError)
    return (
      <>
        {back}
        <PageHeader title="Trust source" />
        <ErrorAlert error={source.error} title="Could not load the trust source" />
      </>
    );
  const s = source.data.data;
  return (
    <>
      {back}
      <PageHeader title={s.description ?? "Trust source"}>
        <code>{s.id}</code> · {KIND_WORDS[s.kind]} · <Badge value={s.status} testId="trust-source-status" />
      </PageHeader>
      <section className="card" aria-labelledby="trust-source-state" data-testid="trust-source">
        <h2 id="trust-source-state">State</h2>
        <TrustSourceFacts source={s} />
        {canManage && (
          <div className="actions">
            <button
              type="button"
              disabled={refresh.isPending}
              onClick={() => {
                setNotice(null);
                refresh.mutate({ trustSourceId: s.id });
              }}
            >
              {refresh.isPending ? "Refreshing…" : "Refresh now"}
            </button>
            <button type="button" className="secondary" onClick={() => setEditing(true)} disabled={editing}>
              Edit
            </button>
            <button
              type="button"
              className="secondary danger"
              disabled={remove.isPending}
              onClick={() => {
                if (
                  window.confirm(
                    `Delete the trust source ${s.description ?? s.url}? Policies and issuers naming it trust nothing through it from then on.`,
                  )
                )
                  remove.mutate({ trustSourceId: s.id });
              }}
            >
              Delete trust source
            </button>
          </div>
        )}
        <ErrorAlert error={refresh.error} title="The refresh was refused" />
        <ErrorAlert error={remove.error} title="Could not delete the trust source" />
        {notice && <Success>{notice}</Success>}
      </section>
      {canManage && editing && <TrustSourceEditForm source={s} onDone={() => setEditing(false)} />}
      <ListsCard source={s} />
      <RefreshesCard source={s} />
      <ServicesCard source={s} />
    </>
  );
}

function TrustSourceFacts({ source: s }: { source: TTrustSource }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>{STATUS_WORDS[s.status]}</dd>
      <dt>URL</dt>
      <dd>
        <code>{s.url}</code>
      </dd>
      <dt>Last refresh</dt>
      <dd data-testid="trust-source-last-refresh">
        {s.lastRefreshAt ? <Time at={s.lastRefreshAt} /> : "—"}
        {s.lastError ? (
          <div className="hint" data-testid="trust-source-last-error">
            Failed: <code>{s.lastError.code}</code> {s.lastError.message}
          </div>
        ) : (
          s.lastRefreshAt && <div className="hint">Succeeded.</div>
        )}
      </dd>
      <dt>Last good copy fetched</dt>
      <dd>{s.listsFetchedAt ? <Time at={s.listsFetchedAt} /> : "—"}</dd>
      <dt>Next update (earliest NextUpdate of the lists)</dt>
      <dd data-testid="trust-source-next-update">{s.nextUpdate ? <Time at={s.nextUpdate} /> : "—"}</dd>
      <dt>Next scheduled refresh</dt>
      <dd>
        <Time at={s.nextRefreshAt} />
        <div className="hint">
          Every {Math.round(s.refreshIntervalSeconds / 60)} minutes, sooner at a NextUpdate.
        </div>
      </dd>
      <dt>Signer certificates</dt>
      <dd>{s.signerCertificates.length}</dd>
      {s.description && (
        <>
          <dt>Description</dt>
          <dd>{s.description}</dd>
        </>
      )}
      <dt>Created</dt>
      <dd>
        <Time at={s.createdAt} />
      </dd>
    </dl>
  );
}

/** The lists of the last good copy: a LoTL first, then the lists it points to, each with its own outcome. */
function ListsCard({ source }: { source: TTrustSource }) {
  return (
    <section className="card" aria-labelledby="trust-source-lists">
      <h2 id="trust-source-lists">Lists</h2>
      {source.lists.length === 0 ? (
        <Empty>No copy has verified yet.</Empty>
      ) : (
        <DataTable
          caption="The lists of the last good copy"
          testId="trust-source-lists-table"
          rows={source.lists}
          rowKey={(l) => l.location}
          columns={[
            { header: "Location", cell: (l) => <code>{l.location}</code> },
            { header: "Territory", cell: (l) => l.territory ?? "—" },
            { header: "Sequence number", cell: (l) => l.sequenceNumber ?? "—" },
            { header: "Issued", cell: (l) => (l.issuedAt ? <Time at={l.issuedAt} /> : "—") },
            { header: "Next update", cell: (l) => (l.nextUpdate ? <Time at={l.nextUpdate} /> : "—") },
            { header: "Services", cell: (l) => l.services },
            {
              header: "Last fetch",
              cell: (l) =>
                l.error ? (
                  <>
                    <Badge value="failed" /> <code>{l.error.code}</code>
                    <div className="hint">{l.error.message}</div>
                  </>
                ) : (
                  "verified"
                ),
            },
          ]}
        />
      )}
    </section>
  );
}

const OUTCOME_WORDS: Record<TTrustSourceRefresh["outcome"], string> = {
  ok: "verified",
  failed: "not fetched",
  refused: "refused",
};

/** TrustSources_ListRefreshes: the recorded refresh attempts, newest first (the newest 50 are kept). */
function RefreshesCard({ source }: { source: TTrustSource }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const pageSize = usePageSize();
  const refreshes = useCursorPages({
    queryKey: trpc.trustSources.listRefreshes.infiniteQueryKey({ limit: pageSize, trustSourceId: source.id }),
    fetchPage: (cursor, signal) =>
      client.trustSources.listRefreshes.query(
        { limit: pageSize, cursor, trustSourceId: source.id },
        { signal },
      ),
  });
  return (
    <section className="card" aria-labelledby="trust-source-refreshes">
      <h2 id="trust-source-refreshes">Refresh history</h2>
      <p className="hint">
        Each fetch of the list, newest first (the newest 50 are kept). A failed or refused refresh keeps the
        last good copy in use while its NextUpdate has not passed.
      </p>
      <PagedTable
        list={refreshes}
        caption="Refresh attempts"
        noun={{ one: "refresh", other: "refreshes" }}
        empty="No refresh recorded yet."
        testId="trust-source-refreshes-table"
        rowKey={(r) => r.id}
        columns={[
          { header: "When", cell: (r) => <Time at={r.attemptedAt} /> },
          { header: "Trigger", cell: (r) => r.trigger },
          {
            header: "Outcome",
            cell: (r) => (
              <>
                <Badge value={r.outcome} /> {OUTCOME_WORDS[r.outcome]}
                {r.reason && (
                  <div className="hint">
                    <code>{r.reason.code}</code> {r.reason.message}
                  </div>
                )}
                {r.failedLists.map((l) => (
                  <div className="hint" key={l.location}>
                    {l.location}: <code>{l.code}</code>
                  </div>
                ))}
              </>
            ),
          },
          { header: "Sequence number", cell: (r) => r.sequenceNumber ?? "—" },
          { header: "Issued", cell: (r) => (r.issuedAt ? <Time at={r.issuedAt} /> : "—") },
          { header: "Next update", cell: (r) => (r.nextUpdate ? <Time at={r.nextUpdate} /> : "—") },
          { header: "Services", cell: (r) => r.services },
          { header: "Last good copy kept", cell: (r) => (r.lastGoodCopyKept ? "yes" : "no") },
        ]}
      />
    </section>
  );
}

/** TrustSources_ListServices, optionally of one service type (those the lists summarise are offered). */
function ServicesCard({ source }: { source: TTrustSource }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const pageSize = usePageSize();
  const [serviceType, setServiceType] = useState("");
  const query = { trustSourceId: source.id, ...(serviceType && { serviceType }) };
  const services = useCursorPages({
    queryKey: trpc.trustSources.listServices.infiniteQueryKey({ limit: pageSize, ...query }),
    fetchPage: (cursor, signal) =>
      client.trustSources.listServices.query({ limit: pageSize, cursor, ...query }, { signal }),
  });
  // The types seen so far, for the filter (the lists name few).
  const [types, setTypes] = useState<string[]>([]);
  const seen = [...new Set([...types, ...services.items.map((x) => x.serviceType)])].sort();
  if (seen.length !== types.length) setTypes(seen);
  return (
    <section className="card" aria-labelledby="trust-source-services">
      <h2 id="trust-source-services">Services</h2>
      <p className="hint">
        A policy or issuer naming this trust source with a service type trusts the certificates of the
        services of that type marked trusted.
      </p>
      <div className="grid">
        <FilterField
          label="Service type"
          allLabel="All service types"
          value={serviceType}
          onChange={setServiceType}
          options={types}
        />
      </div>
      <PagedTable
        list={services}
        caption="Services of the last good copy"
        noun={{ one: "service", other: "services" }}
        empty="The lists name no services."
        testId="trust-source-services-table"
        rowKey={(x) => `${x.list} ${x.provider} ${x.serviceType} ${x.serviceName} ${x.statusStartingTime}`}
        columns={[
          {
            header: "Service",
            cell: (x) => (
              <>
                {x.serviceName ?? "—"}
                <div className="hint">{x.provider}</div>
              </>
            ),
          },
          {
            header: "Service type",
            cell: (x) => <code title={x.serviceType}>{shortServiceType(x.serviceType)}</code>,
          },
          {
            header: "Status",
            cell: (x) => (
              <>
                <Badge value={shortStatus(x.status)} />
                <div className="hint">
                  since <Time at={x.statusStartingTime} />
                  {x.history.length > 0 &&
                    `; before: ${x.history.map((h) => shortStatus(h.status)).join(", ")}`}
                </div>
              </>
            ),
          },
          { header: "Trusted now", cell: (x) => (x.trusted ? "yes" : "no") },
          {
            header: "Certificates",
            cell: (x) =>
              x.certificates.map((c) => (
                <div key={`${c.subject}${c.notAfter}`}>
                  <code>{c.subject}</code>
                  <div className="hint">
                    until <Time at={c.notAfter} />
                  </div>
                </div>
              )),
          },
          { header: "List", cell: (x) => x.territory ?? x.list },
        ]}
      />
    </section>
  );
}
