"use client";
import { PLATFORM_SCOPE } from "@cred/contracts/scopes";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { SubmitButton, TextField } from "../../../components/form-fields";
import { SecretOnce } from "../../../components/secret-once";
import { useSession } from "../../../components/session";
import { Badge, Empty, ErrorAlert, PageHeader, Success } from "../../../components/status";
import { useCursorPages, usePageSize } from "../../../lib/paging";
import { useRefresh } from "../../../lib/refresh";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";

/** Tenant administration (docs/api/tenants.md): platform operators only; others are told so. */
export default function TenantsPage() {
  const session = useSession();
  if (!session.scopes.includes(PLATFORM_SCOPE)) {
    return (
      <>
        <PageHeader title="Tenants" />
        <Empty>Only platform operators manage tenants.</Empty>
      </>
    );
  }
  return <Tenants />;
}

function Tenants() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const session = useSession();
  const pageSize = usePageSize();
  const list = useCursorPages({
    queryKey: trpc.tenants.list.infiniteQueryKey({ limit: pageSize }),
    fetchPage: (cursor, signal) => client.tenants.list.query({ limit: pageSize, cursor }, { signal }),
  });
  const refresh = useRefresh("tenants");
  const [name, setName] = useState("");
  const [adminEmail, setAdminEmail] = useState("");
  const [created, setCreated] = useState<{ tenant: string; email: string; password: string } | null>(null);
  const [changed, setChanged] = useState<string | null>(null);
  const create = useMutation(
    trpc.tenants.create.mutationOptions({
      onSuccess: async (result) => {
        const admin = result.data.admin;
        setCreated(
          admin ? { tenant: result.data.name, email: admin.email, password: admin.temporaryPassword } : null,
        );
        setChanged(`Created the tenant “${result.data.name}”.`);
        setName("");
        setAdminEmail("");
        await refresh();
      },
    }),
  );
  const suspend = useMutation(
    trpc.tenants.suspend.mutationOptions({
      onSuccess: async (result) => {
        setChanged(`Suspended “${result.data.name}”: its keys and users are refused.`);
        await refresh();
      },
    }),
  );
  const reactivate = useMutation(
    trpc.tenants.reactivate.mutationOptions({
      onSuccess: async (result) => {
        setChanged(`Reactivated “${result.data.name}”.`);
        await refresh();
      },
    }),
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setChanged(null);
    create.mutate({ name, ...(adminEmail ? { adminEmail } : {}) });
  };

  return (
    <>
      <PageHeader title="Tenants">
        Every tenant of the platform. A suspended tenant keeps its data, but its API keys and console users
        are refused and its issuers and verifiers turn wallets away until it is reactivated.
      </PageHeader>
      {created && (
        <SecretOnce
          label={`Password of ${created.email}, first admin of “${created.tenant}”`}
          value={created.password}
          onDismiss={() => setCreated(null)}
        />
      )}
      {changed && <Success>{changed}</Success>}
      <ErrorAlert error={suspend.error} title="Could not suspend the tenant" />
      <ErrorAlert error={reactivate.error} title="Could not reactivate the tenant" />
      <PagedTable
        list={list}
        caption="Tenants"
        noun={{ one: "tenant", other: "tenants" }}
        empty="No tenants."
        rowKey={(tenant) => tenant.id}
        rowTestId={(tenant) => `tenant-${tenant.name}`}
        columns={[
          { header: "Name", cell: (tenant) => tenant.name },
          { header: "Id", cell: (tenant) => <code>{tenant.id}</code> },
          { header: "Status", cell: (tenant) => <Badge value={tenant.status} /> },
          { header: "Created", cell: (tenant) => new Date(tenant.createdAt).toLocaleString() },
          {
            header: "Actions",
            hideHeader: true,
            cell: (tenant) =>
              tenant.status === "active" ? (
                tenant.id !== session.tenant.id && (
                  <button
                    type="button"
                    className="danger small"
                    disabled={suspend.isPending}
                    aria-label={`Suspend ${tenant.name}`}
                    onClick={() => {
                      if (
                        window.confirm(
                          `Suspend “${tenant.name}”? Its API keys and console users are refused at once, and its issuers stop issuing.`,
                        )
                      ) {
                        setChanged(null);
                        suspend.mutate({ tenantId: tenant.id });
                      }
                    }}
                  >
                    Suspend
                  </button>
                )
              ) : (
                <button
                  type="button"
                  className="small"
                  disabled={reactivate.isPending}
                  aria-label={`Reactivate ${tenant.name}`}
                  onClick={() => {
                    setChanged(null);
                    reactivate.mutate({ tenantId: tenant.id });
                  }}
                >
                  Reactivate
                </button>
              ),
          },
        ]}
      />
      <form onSubmit={submit} className="card" aria-labelledby="create-tenant">
        <h2 id="create-tenant">Create a tenant</h2>
        <TextField label="Name" required value={name} onChange={setName} />
        <TextField
          label="First admin's e-mail (optional)"
          type="email"
          value={adminEmail}
          onChange={setAdminEmail}
        />
        <p className="hint">The first admin's password is shown once, here, to hand over.</p>
        <ErrorAlert error={create.error} title="Could not create the tenant" />
        <SubmitButton pending={create.isPending} disabled={!name.trim()}>
          Create tenant
        </SubmitButton>
      </form>
    </>
  );
}
