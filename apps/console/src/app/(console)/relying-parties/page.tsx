"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { SubmitButton, TextField } from "../../../components/form-fields";
import { RecordLink } from "../../../components/record-choices";
import { RecordListPage } from "../../../components/record-list";
import { useCan } from "../../../components/session";
import { ErrorAlert, PageHeader } from "../../../components/status";
import { useRefresh } from "../../../lib/refresh";
import { useResourcePages } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";

/** Identifiers typed one a line or comma-separated. */
export const identifiersOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter(Boolean);

export default function RelyingPartiesPage() {
  return (
    <RecordListPage
      scope="verification-policies.read"
      title="Relying parties"
      refusal="Your role cannot read relying parties."
      list={RelyingPartyList}
    />
  );
}

function RelyingPartyList() {
  const canManage = useCan("verification-policies.manage");
  const list = useResourcePages("relyingParties");
  return (
    <>
      <PageHeader title="Relying parties">
        The relying parties this environment acts for as an intermediary: its access certificate signs the
        requests, and each party&apos;s registration certificates name it to the wallet. Verification policies
        name the party they verify for.
      </PageHeader>
      <PagedTable
        list={list}
        caption="Relying parties"
        noun={{ one: "relying party", other: "relying parties" }}
        empty="No relying parties yet: this environment verifies for itself."
        rowKey={(p) => p.id}
        rowTestId={(p) => `relying-party-${p.id}`}
        testId="relying-parties"
        columns={[
          {
            header: "Relying party",
            cell: (p) => (
              <>
                <RecordLink href={`/relying-parties/${p.id}`} id={p.id} />
                <div className="hint">{p.name}</div>
              </>
            ),
          },
          { header: "Identifiers", cell: (p) => <code>{p.identifiers.join(", ")}</code> },
          { header: "Country", cell: (p) => p.country ?? "—" },
        ]}
      />
      {canManage && <CreateRelyingPartyForm />}
    </>
  );
}

/** RelyingParties_Create; then its page opens, to add its registration certificates. */
function CreateRelyingPartyForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const refresh = useRefresh("relyingParties");
  const [name, setName] = useState("");
  const [identifiers, setIdentifiers] = useState("");
  const [country, setCountry] = useState("");
  const [infoUri, setInfoUri] = useState("");
  const [privacyPolicyUri, setPrivacyPolicyUri] = useState("");
  const create = useMutation(
    trpc.relyingParties.create.mutationOptions({
      onSuccess: async (result) => {
        await refresh();
        router.push(`/relying-parties/${result.data.id}`);
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      name: name.trim(),
      identifiers: identifiersOf(identifiers),
      country: country.trim() || null,
      infoUri: infoUri.trim() || null,
      privacyPolicyUri: privacyPolicyUri.trim() || null,
    });
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="create-relying-party">
      <h2 id="create-relying-party">Add a relying party</h2>
      <div className="grid">
        <TextField label="Name" required value={name} onChange={setName} placeholder="Webshop" />
        <TextField
          label="Identifiers (as its registration names them)"
          required
          value={identifiers}
          onChange={setIdentifiers}
          placeholder="LEIXG-743700EB2QF2J1WRO915"
        >
          <span className="hint">Comma-separated, e.g. a VAT or LEI identifier.</span>
        </TextField>
        <TextField label="Country (optional)" value={country} onChange={setCountry} placeholder="FI" />
        <TextField label="Information URL (optional)" type="url" value={infoUri} onChange={setInfoUri} />
        <TextField
          label="Privacy policy URL (optional)"
          type="url"
          value={privacyPolicyUri}
          onChange={setPrivacyPolicyUri}
        />
      </div>
      <ErrorAlert error={create.error} title="Could not add the relying party" />
      <SubmitButton pending={create.isPending}>Add relying party</SubmitButton>
    </form>
  );
}
