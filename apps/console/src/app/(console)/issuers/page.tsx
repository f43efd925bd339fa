"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { ChoiceField, SubmitButton, TextField } from "../../../components/form-fields";
import { useCan } from "../../../components/session";
import { Badge, Empty, ErrorAlert, PageHeader } from "../../../components/status";
import { useRefresh } from "../../../lib/refresh";
import { useAllResourceItems, useResourcePages } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";
import { IssuerKeyCustodyFields, keyCustodyDraftOf, keyCustodyOf } from "./key-custody-field";

export default function IssuersPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const canManage = useCan("issuers.manage");
  const list = useResourcePages("issuers");
  const organisations = useAllResourceItems("organisations");
  const refresh = useRefresh("issuers");
  const [organisationReference, setOrganisation] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [walletName, setWalletName] = useState("");
  const [keyCustody, setKeyCustody] = useState(keyCustodyDraftOf());
  const [separateStatusListKey, setSeparateStatusListKey] = useState(false);
  const create = useMutation(
    trpc.issuers.create.mutationOptions({
      onSuccess: async (result) => {
        await refresh();
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
      keyCustody: keyCustodyOf(keyCustody),
      ...(separateStatusListKey ? { statusListSigning: { separateKey: true } } : {}),
    });
  };
  const orgs = organisations.data?.items ?? [];

  return (
    <>
      <PageHeader title="Issuers">
        Issuers sign credentials. A draft issuer is activated once it is ready.
      </PageHeader>
      <PagedTable
        list={list}
        caption="Issuers"
        noun={{ one: "issuer", other: "issuers" }}
        empty="No issuers yet."
        rowKey={(issuer) => issuer.id}
        columns={[
          {
            header: "Name",
            cell: (issuer) => <Link href={`/issuers/${issuer.id}`}>{issuer.displayName}</Link>,
          },
          { header: "Organisation", cell: (issuer) => issuer.organisationReference },
          { header: "Status", cell: (issuer) => <Badge value={issuer.status} /> },
          { header: "Id", cell: (issuer) => <code>{issuer.id}</code> },
        ]}
      />
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
                <ChoiceField
                  label="Organisation"
                  value={organisationReference}
                  onChange={setOrganisation}
                  choices={orgs.map((o) => ({
                    value: o.reference,
                    label: `${o.displayName} (${o.reference})`,
                  }))}
                />
                <TextField label="Display name" required value={displayName} onChange={setDisplayName} />
                <TextField
                  label="Name shown in wallets (English, optional)"
                  value={walletName}
                  onChange={setWalletName}
                />
                <IssuerKeyCustodyFields value={keyCustody} onChange={setKeyCustody} />
              </div>
              <label className="inline">
                <input
                  type="checkbox"
                  checked={separateStatusListKey}
                  onChange={(e) => setSeparateStatusListKey(e.target.checked)}
                />
                Sign status lists with a key of their own (in the custody chosen for it)
              </label>
              <ErrorAlert error={create.error} title="Could not create the issuer" />
              <SubmitButton pending={create.isPending}>Create issuer</SubmitButton>
            </>
          )}
        </form>
      )}
    </>
  );
}
