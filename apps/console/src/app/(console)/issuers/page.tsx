"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { useCan } from "../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader } from "../../../components/status";
import { useTRPC } from "../../../lib/trpc";

export default function IssuersPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const canManage = useCan("issuers.manage");
  const list = useQuery(trpc.issuers.list.queryOptions({ limit: 100 }));
  const organisations = useQuery(trpc.organisations.list.queryOptions({ limit: 100 }));
  const [organisationReference, setOrganisation] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [walletName, setWalletName] = useState("");
  const create = useMutation(
    trpc.issuers.create.mutationOptions({
      onSuccess: async (result) => {
        await queryClient.invalidateQueries(trpc.issuers.pathFilter());
        router.push(`/issuers/${result.data.id}`);
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      organisationReference,
      displayName,
      ...(walletName ? { display: [{ locale: "en", name: walletName }] } : {}),
    });
  };
  const orgs = organisations.data?.data ?? [];

  return (
    <>
      <PageHeader title="Issuers">
        Issuers sign credentials. A draft issuer is activated once it is ready.
      </PageHeader>
      {list.isPending && <Loading />}
      <ErrorAlert error={list.error} />
      {list.data &&
        (list.data.data.length === 0 ? (
          <Empty>No issuers yet.</Empty>
        ) : (
          <table>
            <caption className="visually-hidden">Issuers</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Organisation</th>
                <th scope="col">Status</th>
                <th scope="col">Id</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((issuer) => (
                <tr key={issuer.id}>
                  <td>
                    <Link href={`/issuers/${issuer.id}`}>{issuer.displayName}</Link>
                  </td>
                  <td>{issuer.organisationReference}</td>
                  <td>
                    <Badge value={issuer.status} />
                  </td>
                  <td>
                    <code>{issuer.id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-issuer">
          <h2 id="create-issuer">Create an issuer</h2>
          {organisations.isSuccess && orgs.length === 0 ? (
            <Empty>
              Create an <Link href="/organisations">organisation</Link> first.
            </Empty>
          ) : (
            <>
              <div className="grid">
                <label>
                  Organisation
                  <select
                    required
                    value={organisationReference}
                    onChange={(e) => setOrganisation(e.target.value)}
                  >
                    <option value="">Choose…</option>
                    {orgs.map((o) => (
                      <option key={o.reference} value={o.reference}>
                        {o.displayName} ({o.reference})
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Display name
                  <input required value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
                </label>
                <label>
                  Name shown in wallets (English, optional)
                  <input value={walletName} onChange={(e) => setWalletName(e.target.value)} />
                </label>
              </div>
              <ErrorAlert error={create.error} title="Could not create the issuer" />
              <button type="submit" disabled={create.isPending}>
                {create.isPending ? "Creating…" : "Create issuer"}
              </button>
            </>
          )}
        </form>
      )}
    </>
  );
}
