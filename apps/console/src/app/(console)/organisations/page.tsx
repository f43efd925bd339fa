"use client";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { CountryField, countryLabel } from "../../../components/country-field";
import { PagedTable } from "../../../components/data-table";
import { SubmitButton, TextField } from "../../../components/form-fields";
import { useCan } from "../../../components/session";
import { ErrorAlert, PageHeader, Success } from "../../../components/status";
import { useRefresh } from "../../../lib/refresh";
import { useResourcePages } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";
import { OrganisationEditForm } from "./organisation-edit-form";

export default function OrganisationsPage() {
  const trpc = useTRPC();
  const canManage = useCan("organisations.manage");
  const list = useResourcePages("organisations");
  const refresh = useRefresh("organisations");
  const [reference, setReference] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [country, setCountry] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const edited = list.items.find((o) => o.reference === editing);
  const create = useMutation(
    trpc.organisations.create.mutationOptions({
      onSuccess: async () => {
        setReference("");
        setDisplayName("");
        setCountry("");
        await refresh();
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ reference, displayName, country: country || null, identifiers: [] });
  };

  return (
    <>
      <PageHeader title="Organisations">Organisations operate issuers.</PageHeader>
      <PagedTable
        list={list}
        caption="Organisations"
        noun={{ one: "organisation", other: "organisations" }}
        empty="No organisations yet. Create the first one below."
        rowKey={(o) => o.reference}
        columns={[
          { header: "Reference", cell: (o) => <code>{o.reference}</code> },
          { header: "Name", cell: (o) => o.displayName },
          { header: "Country", cell: (o) => (o.country ? countryLabel(o.country) : "—") },
          { header: "Created", cell: (o) => new Date(o.createdAt).toLocaleString() },
          canManage && {
            header: "Actions",
            hideHeader: true,
            cell: (o) => (
              <button
                type="button"
                className="secondary small"
                aria-label={`Edit organisation ${o.reference}`}
                onClick={() => setEditing(o.reference)}
              >
                Edit
              </button>
            ),
          },
        ]}
      />
      {canManage && edited && (
        <OrganisationEditForm key={edited.reference} organisation={edited} onDone={() => setEditing(null)} />
      )}
      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-org">
          <h2 id="create-org">Create an organisation</h2>
          <div className="grid">
            <TextField
              label="Reference"
              required
              value={reference}
              onChange={setReference}
              pattern="[a-z0-9]([a-z0-9\-]{0,62}[a-z0-9])?"
              aria-describedby="org-ref-hint"
            >
              <span id="org-ref-hint" className="hint">
                Lower-case letters, digits and inner hyphens, e.g. acme-bank.
              </span>
            </TextField>
            <TextField label="Display name" required value={displayName} onChange={setDisplayName} />
            <CountryField label="Country (optional)" value={country} onChange={setCountry} />
          </div>
          <ErrorAlert error={create.error} title="Could not create the organisation" />
          {create.isSuccess && <Success>Organisation {create.data.data.reference} created.</Success>}
          <SubmitButton pending={create.isPending}>Create organisation</SubmitButton>
        </form>
      )}
    </>
  );
}
