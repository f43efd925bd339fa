"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useCan } from "../../../components/session";
import { Empty, ErrorAlert, Loading, PageHeader, Success } from "../../../components/status";
import { useTRPC } from "../../../lib/trpc";

export default function OrganisationsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canManage = useCan("organisations.manage");
  const list = useQuery(trpc.organisations.list.queryOptions({ limit: 100 }));
  const [reference, setReference] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [country, setCountry] = useState("");
  const create = useMutation(
    trpc.organisations.create.mutationOptions({
      onSuccess: async () => {
        setReference("");
        setDisplayName("");
        setCountry("");
        await queryClient.invalidateQueries(trpc.organisations.pathFilter());
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
      {list.isPending && <Loading />}
      <ErrorAlert error={list.error} />
      {list.data &&
        (list.data.data.length === 0 ? (
          <Empty>No organisations yet. Create the first one below.</Empty>
        ) : (
          <table>
            <caption className="visually-hidden">Organisations</caption>
            <thead>
              <tr>
                <th scope="col">Reference</th>
                <th scope="col">Name</th>
                <th scope="col">Country</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((o) => (
                <tr key={o.reference}>
                  <td>
                    <code>{o.reference}</code>
                  </td>
                  <td>{o.displayName}</td>
                  <td>{o.country ?? "—"}</td>
                  <td>{new Date(o.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-org">
          <h2 id="create-org">Create an organisation</h2>
          <div className="grid">
            <label>
              Reference
              <input
                required
                value={reference}
                onChange={(e) => setReference(e.target.value)}
                pattern="[a-z0-9]([a-z0-9\-]{0,62}[a-z0-9])?"
                aria-describedby="org-ref-hint"
              />
              <span id="org-ref-hint" className="hint">
                Lower-case letters, digits and inner hyphens, e.g. acme-bank.
              </span>
            </label>
            <label>
              Display name
              <input required value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
            </label>
            <label>
              Country (optional)
              <input
                value={country}
                onChange={(e) => setCountry(e.target.value.toUpperCase())}
                maxLength={2}
                placeholder="NL"
              />
            </label>
          </div>
          <ErrorAlert error={create.error} title="Could not create the organisation" />
          {create.isSuccess && <Success>Organisation {create.data.data.reference} created.</Success>}
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create organisation"}
          </button>
        </form>
      )}
    </>
  );
}
