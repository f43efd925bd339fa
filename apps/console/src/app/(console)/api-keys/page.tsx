"use client";
import { SCOPES, STAFF_SCOPE, type TenantScopeName } from "@cred/contracts/scopes";
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { CheckboxGrid, SubmitButton, TextField } from "../../../components/form-fields";
import { SecretOnce } from "../../../components/secret-once";
import { useSession } from "../../../components/session";
import { Badge, Empty, ErrorAlert, PageHeader } from "../../../components/status";
import { unpaged } from "../../../lib/paging";
import { useRefresh } from "../../../lib/refresh";
import { useAllResourceItems } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";

export default function ApiKeysPage() {
  const session = useSession();
  if (session.user.role !== "admin") {
    return (
      <>
        <PageHeader title="API keys" />
        <Empty>Only administrators manage API keys.</Empty>
      </>
    );
  }
  return <ApiKeys />;
}

function ApiKeys() {
  const trpc = useTRPC();
  const session = useSession();
  const list = useQuery(trpc.apiKeys.list.queryOptions());
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<(TenantScopeName | typeof STAFF_SCOPE)[]>([]);
  const [issuerId, setIssuerId] = useState("");
  const [expiresOn, setExpiresOn] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const issuers = useAllResourceItems("issuers");
  const issuerName = new Map((issuers.data?.items ?? []).map((i) => [i.id, i.displayName]));
  const refresh = useRefresh("apiKeys");
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: async (result) => {
        setSecret(result.data.key);
        setName("");
        setScopes([]);
        setIssuerId("");
        setExpiresOn("");
        await refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: refresh }));

  // staff.manage (team management) only for production keys without an issuer (docs/api/staff-members.md).
  const scopeOptions =
    session.environment === "production" && !issuerId ? [...SCOPES, STAFF_SCOPE] : [...SCOPES];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      name,
      scopes: scopes.filter((s) => scopeOptions.includes(s)),
      // An issuer-client key acts for that issuer only; a key with an end date stops working after it.
      ...(issuerId ? { issuerId } : {}),
      ...(expiresOn ? { expiresAt: new Date(`${expiresOn}T23:59:59.999Z`).toISOString() } : {}),
    });
  };

  return (
    <>
      <PageHeader title="API keys">
        Keys for backend systems in the {session.environment} environment. A key is shown once, when created.
      </PageHeader>
      {secret && <SecretOnce label="The new API key" value={secret} onDismiss={() => setSecret(null)} />}
      <ErrorAlert error={revoke.error} title="Could not revoke the key" />
      <PagedTable
        list={unpaged(list)}
        caption="API keys"
        noun={{ one: "API key", other: "API keys" }}
        empty="No API keys in this environment."
        rowKey={(k) => k.id}
        rowTestId={(k) => `api-key-${k.name}`}
        columns={[
          { header: "Name", cell: (k) => k.name },
          { header: "Prefix", cell: (k) => <code>ak_{k.prefix}_…</code> },
          {
            header: "Scopes",
            cell: (k) => (k.scopes.length === SCOPES.length ? "all scopes" : k.scopes.join(", ")),
          },
          {
            header: "Issuer",
            cell: (k) => (k.issuerId ? (issuerName.get(k.issuerId) ?? k.issuerId) : "all issuers"),
          },
          { header: "Status", cell: (k) => <Badge value={k.status} /> },
          {
            header: "Expires",
            // Entered as a UTC day (the end of it), so shown as that day, whatever the browser's zone.
            cell: (k) => (k.expiresAt ? `${k.expiresAt.slice(0, 10)} (UTC)` : "never"),
          },
          {
            header: "Last used",
            cell: (k) => (k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "never"),
          },
          {
            header: "Actions",
            hideHeader: true,
            cell: (k) =>
              k.status === "active" && (
                <button
                  type="button"
                  className="danger small"
                  disabled={revoke.isPending}
                  aria-label={`Revoke ${k.name} (ak_${k.prefix})`}
                  onClick={() => {
                    if (
                      window.confirm(
                        `Revoke the key “${k.name}” (ak_${k.prefix}_…)? Calls with it will fail at once.`,
                      )
                    )
                      revoke.mutate({ id: k.id });
                  }}
                >
                  Revoke
                </button>
              ),
          },
        ]}
      />
      <form onSubmit={submit} className="card" aria-labelledby="create-key">
        <h2 id="create-key">Create an API key</h2>
        <TextField label="Name" required value={name} onChange={setName} />
        <label>
          Issuer
          <select aria-label="Issuer" value={issuerId} onChange={(e) => setIssuerId(e.target.value)}>
            <option value="">All issuers (tenant-wide key)</option>
            {(issuers.data?.items ?? []).map((issuer) => (
              <option key={issuer.id} value={issuer.id}>
                {issuer.displayName}
              </option>
            ))}
          </select>
        </label>
        <TextField
          label="Expires after (optional, UTC)"
          type="date"
          value={expiresOn}
          onChange={setExpiresOn}
        />
        <fieldset>
          <legend>Scopes</legend>
          <div className="actions">
            <button type="button" className="secondary small" onClick={() => setScopes([...SCOPES])}>
              Select all
            </button>
            <button type="button" className="secondary small" onClick={() => setScopes([])}>
              Clear
            </button>
          </div>
          <CheckboxGrid options={scopeOptions} checked={scopes} onChange={setScopes} />
        </fieldset>
        <ErrorAlert error={create.error} title="Could not create the key" />
        <SubmitButton pending={create.isPending} disabled={scopes.length === 0 || !name}>
          Create key
        </SubmitButton>
      </form>
    </>
  );
}
