"use client";
import {
  type TCredentialConfiguration,
  ZCreateCredentialConfigurationVersionRequest,
} from "@cred/contracts/credential-configurations";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { SubmitButton, TextField } from "../../../../components/form-fields";
import { useCan } from "../../../../components/session";
import { Badge, ErrorAlert, Loading, PageHeader, Success } from "../../../../components/status";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC } from "../../../../lib/trpc";
import {
  ClaimEditor,
  ClaimFormAlerts,
  type ClaimRow,
  claimFormIssues,
  fromClaimDefinition,
  toClaimDefinition,
} from "../claim-editor";

export default function CredentialConfigurationPage() {
  const { identifier } = useParams<{ identifier: string }>();
  const configurationIdentifier = decodeURIComponent(identifier);
  const trpc = useTRPC();
  const canManage = useCan("credential-configurations.manage", "issuers.manage");
  const configuration = useQuery(trpc.credentialConfigurations.get.queryOptions({ configurationIdentifier }));
  const refresh = useRefresh("credentialConfigurations", "issuers");
  const activate = useMutation(
    trpc.credentialConfigurations.activateVersion.mutationOptions({
      onSuccess: async (r) => {
        setNotice(`Version ${r.data.activeVersion} is now active.`);
        await refresh();
      },
    }),
  );
  // Outlives the new-version form, which starts afresh whenever the active version changes.
  const [notice, setNotice] = useState<string | null>(null);
  // The version whose claims are shown; null: the active one.
  const [shownVersion, setShownVersion] = useState<number | null>(null);

  if (configuration.isPending) return <Loading />;
  if (configuration.isError)
    return <ErrorAlert error={configuration.error} title="Could not load the credential configuration" />;
  const data = configuration.data.data;

  return (
    <>
      <p>
        <Link href="/credential-configurations">← Credential configurations</Link>
      </p>
      <PageHeader title={data.displayName}>
        <code>{data.identifier}</code> · issued by{" "}
        <Link href={`/issuers/${data.issuerId}`}>
          <code>{data.issuerId}</code>
        </Link>
      </PageHeader>
      <dl className="facts">
        <dt>Credential type (vct)</dt>
        <dd>
          <code>{data.credentialType}</code>
        </dd>
        <dt>Type metadata</dt>
        <dd>
          {data.typeMetadataIntegrity ? (
            <>
              pinned, <code>vct#integrity</code> <code>{data.typeMetadataIntegrity}</code>
            </>
          ) : (
            "follows the versions (no vct#integrity)"
          )}
        </dd>
        <dt>Active version</dt>
        <dd data-testid="active-version">v{data.activeVersion}</dd>
        <dt>Lifetime</dt>
        <dd>{data.defaultLifetimeDays} days</dd>
        <dt>Holder binding · revocable</dt>
        <dd>
          {data.holderBindingRequired ? "yes" : "no"} · {data.statusEnabled ? "yes" : "no"}
        </dd>
      </dl>

      <VersionClaims
        configuration={data}
        version={shownVersion ?? data.activeVersion}
        onShowActive={() => setShownVersion(null)}
      />

      <section className="card" aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        <p>
          New issuance transactions use the active version; transactions created earlier keep the version they
          were created with.
        </p>
        <table>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Reason</th>
              <th scope="col">Created</th>
              <th scope="col">Last activated</th>
              <th scope="col">
                <span className="visually-hidden">Claims</span>
              </th>
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {data.versions.map((v) => (
              <tr key={v.version}>
                <td>v{v.version}</td>
                <td>
                  <Badge value={v.status} testId={`version-${v.version}-status`} />
                </td>
                <td>{v.reason ?? "—"}</td>
                <td>{new Date(v.createdAt).toLocaleString()}</td>
                <td>{v.activatedAt ? new Date(v.activatedAt).toLocaleString() : "—"}</td>
                <td>
                  {v.version !== (shownVersion ?? data.activeVersion) && (
                    <button
                      type="button"
                      className="secondary small"
                      onClick={() => setShownVersion(v.status === "active" ? null : v.version)}
                    >
                      Show v{v.version} claims
                    </button>
                  )}
                </td>
                {canManage && (
                  <td>
                    {v.status !== "active" && (
                      <button
                        type="button"
                        className="secondary small"
                        disabled={activate.isPending}
                        onClick={() => activate.mutate({ configurationIdentifier, version: v.version })}
                      >
                        Activate v{v.version}
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        <ErrorAlert error={activate.error} title="Could not activate the version" />
        {notice && <Success>{notice}</Success>}
      </section>

      {canManage && (
        <NewVersionForm
          key={data.activeVersion}
          configuration={data}
          onCreated={async (version) => {
            setNotice(`Version ${version} was created and is now active.`);
            await refresh();
          }}
        />
      )}
    </>
  );
}

/**
 * The claims of one version: the active one from the configuration itself, any other read on demand
 * (CredentialConfigurations_GetVersion).
 */
function VersionClaims({
  configuration,
  version,
  onShowActive,
}: {
  configuration: TCredentialConfiguration;
  version: number;
  onShowActive: () => void;
}) {
  const trpc = useTRPC();
  const isActive = version === configuration.activeVersion;
  const other = useQuery({
    ...trpc.credentialConfigurations.getVersion.queryOptions({
      configurationIdentifier: configuration.identifier,
      version,
    }),
    enabled: !isActive,
  });
  const claims = isActive ? configuration.claims : other.data?.data.claims;
  return (
    <section className="card" aria-labelledby="version-claims">
      <h2 id="version-claims">
        Claims of version {version}
        {isActive ? " (active)" : ""}
      </h2>
      {!isActive && (
        <p>
          A superseded version: transactions created while it was active are issued with these claims.{" "}
          <button type="button" className="secondary small" onClick={onShowActive}>
            Show the active version
          </button>
        </p>
      )}
      {other.isError && <ErrorAlert error={other.error} title="Could not load the version" />}
      {!claims ? (
        !other.isError && <Loading />
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Claim path</th>
              <th scope="col">Type</th>
              <th scope="col">Required</th>
              <th scope="col">Selectively disclosable</th>
            </tr>
          </thead>
          <tbody>
            {claims.map((claim) => (
              <tr key={claim.path.join(".")}>
                <td>
                  <code>{claim.path.join(".")}</code>
                </td>
                <td>{claim.type}</td>
                <td>{claim.required ? "yes" : "no"}</td>
                <td>{claim.selectivelyDisclosable ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The next version's claims, starting from the active version's (re-created when that changes). */
function NewVersionForm({
  configuration,
  onCreated,
}: {
  configuration: TCredentialConfiguration;
  onCreated: (version: number) => Promise<void>;
}) {
  const trpc = useTRPC();
  const [rows, setRows] = useState<ClaimRow[]>(() => configuration.claims.map(fromClaimDefinition));
  const [reason, setReason] = useState("");
  const [issues, setIssues] = useState<Map<string, string[]>>(new Map());
  const [general, setGeneral] = useState<string[]>([]);
  const create = useMutation(
    trpc.credentialConfigurations.createVersion.mutationOptions({
      onSuccess: (r) => onCreated(r.data.activeVersion),
    }),
  );
  const next = Math.max(...configuration.versions.map((v) => v.version)) + 1;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = ZCreateCredentialConfigurationVersionRequest.safeParse({
      configurationIdentifier: configuration.identifier,
      claims: rows.map(toClaimDefinition),
      ...(reason.trim() ? { reason } : {}),
    });
    if (!parsed.success) {
      const found = claimFormIssues(parsed.error.issues, rows);
      setIssues(found.byRow);
      setGeneral(found.general);
      return;
    }
    setIssues(new Map());
    setGeneral([]);
    create.mutate(parsed.data);
  };

  return (
    <form onSubmit={submit} className="card" aria-labelledby="new-version" noValidate>
      <h2 id="new-version">Create version {next}</h2>
      <p>
        Starts from the active version's claims. The new version becomes the active one when it is created.
      </p>
      <ClaimEditor rows={rows} onChange={setRows} issues={issues} />
      <TextField label="Reason (optional)" value={reason} onChange={setReason} />
      <ClaimFormAlerts general={general} rows={rows} issues={issues} />
      <ErrorAlert error={create.error} title="Could not create the version" />
      <SubmitButton pending={create.isPending}>Create version {next}</SubmitButton>
    </form>
  );
}
