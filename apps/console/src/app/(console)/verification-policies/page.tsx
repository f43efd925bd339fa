"use client";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { useCan } from "../../../components/session";
import { Badge, Empty, ErrorAlert, PageHeader, Success } from "../../../components/status";
import { useRefresh } from "../../../lib/refresh";
import { useAllResourceItems, useResourcePages } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";

export default function VerificationPoliciesPage() {
  const trpc = useTRPC();
  const canManage = useCan("verification-policies.manage");
  const list = useResourcePages("verificationPolicies");
  const configurations = useAllResourceItems("credentialConfigurations");
  const refresh = useRefresh("verificationPolicies");
  const suspend = useMutation(trpc.verificationPolicies.suspend.mutationOptions({ onSuccess: refresh }));
  const reactivate = useMutation(
    trpc.verificationPolicies.reactivate.mutationOptions({ onSuccess: refresh }),
  );
  const create = useMutation(
    trpc.verificationPolicies.create.mutationOptions({
      onSuccess: async () => {
        setIdentifier("");
        setDisplayName("");
        setPurpose("");
        setClaims([]);
        await refresh();
      },
    }),
  );

  const [identifier, setIdentifier] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [purpose, setPurpose] = useState("");
  const [configurationId, setConfigurationId] = useState("");
  const [claims, setClaims] = useState<string[]>([]);
  const configuration = configurations.data?.items.find((c) => c.id === configurationId);
  const claimNames = [...new Set((configuration?.claims ?? []).map((c) => c.path[0]!))];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!configuration) return;
    create.mutate({
      identifier,
      displayName,
      purpose: purpose || null,
      credentials: [
        {
          id: "credential",
          credentialTypes: [configuration.credentialType],
          trustedIssuers: [{ issuerId: configuration.issuerId }],
          requiredClaims: claims.map((name) => [name]),
          optionalClaims: [],
          holderBindingRequired: true,
          checkStatus: true,
          maxCredentialAgeDays: null,
        },
      ],
      credentialSets: null,
      responseMode: "direct_post.jwt",
      sessionLifetimeSeconds: 600,
      sameDeviceRedirectUri: null,
    });
  };

  const changing = suspend.isPending || reactivate.isPending;
  return (
    <>
      <PageHeader title="Verification policies">
        What a verification asks for and whom it trusts. Suspended policies refuse new verifications.
      </PageHeader>
      <ErrorAlert error={suspend.error ?? reactivate.error} title="Could not change the policy" />
      <PagedTable
        list={list}
        caption="Verification policies"
        noun={{ one: "verification policy", other: "verification policies" }}
        empty="No verification policies yet."
        rowKey={(p) => p.identifier}
        rowTestId={(p) => `policy-${p.identifier}`}
        columns={[
          { header: "Identifier", cell: (p) => <code>{p.identifier}</code> },
          { header: "Name", cell: (p) => p.displayName },
          { header: "Status", cell: (p) => <Badge value={p.status} /> },
          canManage && {
            header: "Actions",
            hideHeader: true,
            cell: (p) =>
              p.status === "active" ? (
                <button
                  type="button"
                  className="secondary small"
                  disabled={changing}
                  aria-label={`Suspend ${p.identifier}`}
                  onClick={() => suspend.mutate({ policyIdentifier: p.identifier })}
                >
                  Suspend
                </button>
              ) : (
                <button
                  type="button"
                  className="small"
                  disabled={changing}
                  aria-label={`Reactivate ${p.identifier}`}
                  onClick={() => reactivate.mutate({ policyIdentifier: p.identifier })}
                >
                  Reactivate
                </button>
              ),
          },
        ]}
      />
      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-policy">
          <h2 id="create-policy">Create a verification policy</h2>
          <p className="hint">
            Asks for one credential of a configuration on this platform, trusting its issuer; more complex
            rules can be sent through the Management API.
          </p>
          <div className="grid">
            <label>
              Identifier
              <input required value={identifier} onChange={(e) => setIdentifier(e.target.value)} />
            </label>
            <label>
              Display name
              <input required value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
            </label>
            <label>
              Purpose (optional)
              <input value={purpose} onChange={(e) => setPurpose(e.target.value)} />
            </label>
            <label>
              Credential
              <select
                required
                value={configurationId}
                onChange={(e) => {
                  setConfigurationId(e.target.value);
                  setClaims([]);
                }}
              >
                <option value="">Choose…</option>
                {(configurations.data?.items ?? []).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.displayName} ({c.identifier})
                  </option>
                ))}
              </select>
            </label>
          </div>
          {configuration && (
            <fieldset>
              <legend>Claims the holder must disclose</legend>
              {claimNames.length === 0 ? (
                <Empty>This configuration declares no claims.</Empty>
              ) : (
                <div className="checkbox-grid">
                  {claimNames.map((name) => (
                    <label key={name} className="inline">
                      <input
                        type="checkbox"
                        checked={claims.includes(name)}
                        onChange={(e) =>
                          setClaims(e.target.checked ? [...claims, name] : claims.filter((c) => c !== name))
                        }
                      />
                      {name}
                    </label>
                  ))}
                </div>
              )}
            </fieldset>
          )}
          <ErrorAlert error={create.error} title="Could not create the policy" />
          {create.isSuccess && <Success>Policy {create.data.data.identifier} created.</Success>}
          <button type="submit" disabled={create.isPending || !configuration}>
            {create.isPending ? "Creating…" : "Create policy"}
          </button>
        </form>
      )}
    </>
  );
}
