"use client";
import { ZCreateCredentialConfigurationRequest } from "@cred/contracts/credential-configurations";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { type FormEvent, Suspense, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { ChoiceField, SubmitButton, TextField } from "../../../components/form-fields";
import { useCan } from "../../../components/session";
import { Empty, ErrorAlert, Loading, PageHeader, Success } from "../../../components/status";
import { useRefresh } from "../../../lib/refresh";
import { useAllResourceItems, useResourcePages } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";
import {
  ClaimEditor,
  ClaimFormAlerts,
  type ClaimRow,
  claimFormIssues,
  newClaimRow,
  toClaimDefinition,
} from "./claim-editor";

export default function CredentialConfigurationsPage() {
  return (
    <Suspense fallback={<Loading />}>
      <CredentialConfigurations />
    </Suspense>
  );
}

function CredentialConfigurations() {
  const trpc = useTRPC();
  const canManage = useCan("credential-configurations.manage", "issuers.manage");
  const params = useSearchParams();
  const list = useResourcePages("credentialConfigurations");
  const issuers = useAllResourceItems("issuers");
  // An issuer's readiness counts its credential configurations.
  const refresh = useRefresh("credentialConfigurations", "issuers");
  const [identifier, setIdentifier] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [issuerId, setIssuerId] = useState(params.get("issuerId") ?? "");
  const [schemaId, setSchemaId] = useState("");
  const [pinTypeMetadata, setPinTypeMetadata] = useState(false);
  const [rows, setRows] = useState<ClaimRow[]>(() => [newClaimRow("given_name", "string", true)]);
  const [issues, setIssues] = useState<Map<string, string[]>>(new Map());
  const [formIssues, setFormIssues] = useState<string[]>([]);

  const create = useMutation(
    trpc.credentialConfigurations.create.mutationOptions({
      onSuccess: async () => {
        setIdentifier("");
        setDisplayName("");
        setSchemaId("");
        setPinTypeMetadata(false);
        setRows([newClaimRow("given_name", "string", true)]);
        await refresh();
      },
    }),
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const request = {
      identifier,
      displayName,
      issuerId,
      schemaId: schemaId || `urn:example:${identifier}`,
      claims: rows.map(toClaimDefinition),
      ...(pinTypeMetadata ? { pinTypeMetadata } : {}),
    };
    // The API's own schema, so the console refuses exactly what the API would.
    const parsed = ZCreateCredentialConfigurationRequest.safeParse(request);
    if (!parsed.success) {
      const { byRow, general } = claimFormIssues(parsed.error.issues, rows);
      setIssues(byRow);
      setFormIssues(general);
      return;
    }
    setIssues(new Map());
    setFormIssues([]);
    create.mutate(parsed.data);
  };

  return (
    <>
      <PageHeader title="Credential configurations">
        What an issuer issues: the credential type and its claims.
      </PageHeader>
      <PagedTable
        list={list}
        caption="Credential configurations"
        noun={{ one: "credential configuration", other: "credential configurations" }}
        empty="No credential configurations yet."
        rowKey={(c) => c.id}
        columns={[
          {
            header: "Identifier",
            cell: (c) => (
              <Link href={`/credential-configurations/${encodeURIComponent(c.identifier)}`}>
                <code>{c.identifier}</code>
              </Link>
            ),
          },
          { header: "Name", cell: (c) => c.displayName },
          {
            header: "Issuer",
            cell: (c) => (
              <Link href={`/issuers/${c.issuerId}`}>
                <code>{c.issuerId}</code>
              </Link>
            ),
          },
          { header: "Claims", cell: (c) => c.claims.map((claim) => claim.path.join(".")).join(", ") || "—" },
          { header: "Version", cell: (c) => `v${c.activeVersion}` },
        ]}
      />
      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-config" noValidate>
          <h2 id="create-config">Create a credential configuration</h2>
          {issuers.isSuccess && (issuers.data?.items ?? []).length === 0 && (
            <Empty>
              Create an <Link href="/issuers">issuer</Link> first: a configuration belongs to one.
            </Empty>
          )}
          <div className="grid">
            <TextField label="Identifier" required value={identifier} onChange={setIdentifier} />
            <TextField label="Display name" required value={displayName} onChange={setDisplayName} />
            <ChoiceField
              label="Issuer"
              value={issuerId}
              onChange={setIssuerId}
              choices={(issuers.data?.items ?? []).map((i) => ({
                value: i.id,
                label: `${i.displayName} (${i.status})`,
              }))}
            />
            <TextField
              label="Schema id (optional)"
              value={schemaId}
              placeholder="urn:example:<identifier>"
              onChange={setSchemaId}
            />
          </div>
          <label className="inline">
            <input
              type="checkbox"
              checked={pinTypeMetadata}
              onChange={(e) => setPinTypeMetadata(e.target.checked)}
            />
            Pin the type metadata (credentials carry its vct#integrity; later versions keep its claims, labels
            and rules)
          </label>
          <ClaimEditor rows={rows} onChange={setRows} issues={issues} />
          <ClaimFormAlerts general={formIssues} rows={rows} issues={issues} />
          <ErrorAlert error={create.error} title="Could not create the configuration" />
          {create.isSuccess && (
            <Success>Configuration {create.data.data.identifier} created (version 1 active).</Success>
          )}
          <SubmitButton pending={create.isPending}>Create configuration</SubmitButton>
        </form>
      )}
    </>
  );
}
