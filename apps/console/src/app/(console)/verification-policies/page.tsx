"use client";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { CheckboxGrid, ChoiceField, SubmitButton, TextField } from "../../../components/form-fields";
import {
  NO_RELYING_PARTY,
  RelyingPartyFields,
  relyingPartyRules,
} from "../../../components/relying-party-fields";
import { useCan } from "../../../components/session";
import { Badge, Empty, ErrorAlert, PageHeader, Success } from "../../../components/status";
import { TrustSourceFields } from "../../../components/trust-source-fields";
import { parseClaimValues } from "../../../lib/claim-values";
import { useRefresh } from "../../../lib/refresh";
import { useAllResourceItems, useResourcePages } from "../../../lib/resource-lists";
import { useTRPC } from "../../../lib/trpc";
import { ClientIdFields, type ClientIdPrefix, type DidMethod, responseModeFor } from "./client-id-fields";
import { PolicyVersions } from "./policy-version-form";

/** The TS 119 602 PID provider issuance service: what a policy trusting a trust source names by default. */
const ISSUER_SERVICE_TYPE = "http://uri.etsi.org/19602/SvcType/PID/Issuance";

type TrustKind = "platform" | "x5cRoot" | "jwksUri" | "credentialIssuer" | "trustSource";

const TRUST_CHOICES: { value: TrustKind; label: string }[] = [
  { value: "platform", label: "The configuration's issuer on this platform" },
  { value: "x5cRoot", label: "Any issuer certified under an X.509 root" },
  { value: "jwksUri", label: "An external issuer's keys at a JWKS URL" },
  { value: "credentialIssuer", label: "An external issuer by its iss URL (SD-JWT VC issuer metadata)" },
  { value: "trustSource", label: "Issuers a trust source (ETSI trusted list) names under a service type" },
];

/** The policy's trusted-issuer entry for the form's choice (the API checks the value). */
function trustedIssuer(
  kind: TrustKind,
  value: string,
  platformIssuerId: string,
  fromSource: { trustSourceId: string; serviceType: string },
) {
  if (kind === "trustSource")
    return { trustSourceId: fromSource.trustSourceId, serviceType: fromSource.serviceType.trim() };
  if (kind === "x5cRoot") return { x5cRoot: value.trim() };
  if (kind === "jwksUri") return { jwksUri: value.trim() };
  if (kind === "credentialIssuer") return { credentialIssuer: value.trim() };
  return { issuerId: platformIssuerId };
}

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
        setRedirectUri("");
        setRequireResponseCode(false);
        setTrust("platform");
        setTrustValue("");
        setFromSource({ trustSourceId: "", serviceType: "" });
        setCheckStatus(true);
        setHolderBinding(true);
        setMultiple(false);
        setClaimValues("");
        setClientId({ prefix: "x509_hash", didMethod: "jwk" });
        await refresh();
      },
    }),
  );

  const [editing, setEditing] = useState<string | null>(null);
  const [identifier, setIdentifier] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [purpose, setPurpose] = useState("");
  const [configurationId, setConfigurationId] = useState("");
  const [claims, setClaims] = useState<string[]>([]);
  const [redirectUri, setRedirectUri] = useState("");
  const [trust, setTrust] = useState<TrustKind>("platform");
  const [trustValue, setTrustValue] = useState("");
  const [fromSource, setFromSource] = useState({ trustSourceId: "", serviceType: "" });
  const [checkStatus, setCheckStatus] = useState(true);
  const [acceptExtendedTypes, setAcceptExtendedTypes] = useState(false);
  const [holderBinding, setHolderBinding] = useState(true);
  const [multiple, setMultiple] = useState(false);
  const [claimValues, setClaimValues] = useState("");
  const [requireResponseCode, setRequireResponseCode] = useState(false);
  const [reportInvalid, setReportInvalid] = useState(false);
  const [clientId, setClientId] = useState<{ prefix: ClientIdPrefix; didMethod: DidMethod }>({
    prefix: "x509_hash",
    didMethod: "jwk",
  });
  const [relyingParty, setRelyingParty] = useState(NO_RELYING_PARTY);
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
          trustedIssuers: [trustedIssuer(trust, trustValue, configuration.issuerId, fromSource)],
          requiredClaims: claims.map((name) => [name]),
          optionalClaims: [],
          claimValues: parseClaimValues(claimValues),
          multiple,
          holderBindingRequired: holderBinding,
          checkStatus,
          maxCredentialAgeDays: null,
          acceptExtendedTypes,
        },
      ],
      credentialSets: null,
      responseMode: responseModeFor(clientId.prefix),
      clientIdPrefix: clientId.prefix,
      didMethod: clientId.didMethod,
      sessionLifetimeSeconds: 600,
      sameDeviceRedirectUri: redirectUri || null,
      requireResponseCode: Boolean(redirectUri) && requireResponseCode,
      reportInvalidPresentationsToWallet: reportInvalid,
      ...relyingPartyRules(relyingParty),
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
            cell: (p) => (
              <div className="actions">
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Change ${p.identifier} (new version)`}
                  onClick={() => setEditing(p.identifier)}
                >
                  Change
                </button>
                {p.status === "active" ? (
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
                )}
              </div>
            ),
          },
        ]}
      />
      {canManage && editing && (
        <PolicyVersions key={editing} identifier={editing} onDone={() => setEditing(null)} />
      )}
      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="create-policy">
          <h2 id="create-policy">Create a verification policy</h2>
          <p className="hint">
            Asks for one credential of a configuration on this platform, trusting its issuer; more complex
            rules can be sent through the Management API.
          </p>
          <div className="grid">
            <TextField label="Identifier" required value={identifier} onChange={setIdentifier} />
            <TextField label="Display name" required value={displayName} onChange={setDisplayName} />
            <TextField label="Purpose (optional)" value={purpose} onChange={setPurpose} />
            <TextField
              label="Same-device redirect URL (optional, https)"
              type="url"
              value={redirectUri}
              placeholder="https://shop.example.com/checkout/verified"
              onChange={setRedirectUri}
            />
            <ChoiceField
              label="Credential"
              value={configurationId}
              onChange={(id) => {
                setConfigurationId(id);
                setClaims([]);
              }}
              choices={(configurations.data?.items ?? []).map((c) => ({
                value: c.id,
                label: `${c.displayName} (${c.identifier})`,
              }))}
            />
          </div>
          <fieldset>
            <legend>Whom the credential's issuer must be</legend>
            <ChoiceField
              label="Trust"
              value={trust}
              onChange={(value) => setTrust(value as TrustKind)}
              choices={TRUST_CHOICES}
            />
            {trust === "x5cRoot" && (
              <label>
                X.509 root certificate (PEM) the issuer's x5c chain must end at
                <textarea
                  required
                  rows={6}
                  value={trustValue}
                  onChange={(e) => setTrustValue(e.target.value)}
                />
              </label>
            )}
            {trust === "trustSource" && (
              <TrustSourceFields
                value={fromSource}
                onChange={setFromSource}
                defaultServiceType={ISSUER_SERVICE_TYPE}
                purpose="the issuer's x5c chain must end at a CA it names"
              />
            )}
            {(trust === "jwksUri" || trust === "credentialIssuer") && (
              <TextField
                label={trust === "jwksUri" ? "JWKS URL (https)" : "Issuer iss URL (https)"}
                type="url"
                required
                value={trustValue}
                onChange={setTrustValue}
              />
            )}
            <label className="inline">
              <input
                type="checkbox"
                checked={checkStatus}
                onChange={(e) => setCheckStatus(e.target.checked)}
              />
              Check revocation (status list)
            </label>
            <label className="inline">
              <input
                type="checkbox"
                checked={acceptExtendedTypes}
                onChange={(e) => setAcceptExtendedTypes(e.target.checked)}
              />
              Also accept types that extend this one (SD-JWT VC Type Metadata)
            </label>
            <label className="inline">
              <input
                type="checkbox"
                checked={holderBinding}
                onChange={(e) => setHolderBinding(e.target.checked)}
              />
              Require holder binding (the holder proves possession of its key); unchecked also accepts unbound
              ones
            </label>
            <label className="inline">
              <input type="checkbox" checked={multiple} onChange={(e) => setMultiple(e.target.checked)} />
              Accept several presentations of this kind in one answer (DCQL multiple)
            </label>
          </fieldset>
          <fieldset>
            <legend>How the wallet identifies this verifier</legend>
            <ClientIdFields
              prefix={clientId.prefix}
              didMethod={clientId.didMethod}
              onChange={(prefix, didMethod) => setClientId({ prefix, didMethod })}
            />
          </fieldset>
          <label className="inline">
            <input
              type="checkbox"
              checked={requireResponseCode}
              disabled={!redirectUri}
              onChange={(e) => setRequireResponseCode(e.target.checked)}
            />
            Show results only to reads with the redirect's response code (same-device use only)
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={reportInvalid}
              onChange={(e) => setReportInvalid(e.target.checked)}
            />
            Tell the wallet when a presentation fails its signature or holder binding checks (HTTP 400 instead
            of 200; the verification is rejected either way)
          </label>
          {configuration && (
            <fieldset>
              <legend>Claims the holder must disclose</legend>
              {claimNames.length === 0 ? (
                <Empty>This configuration declares no claims.</Empty>
              ) : (
                <CheckboxGrid options={claimNames} checked={claims} onChange={setClaims} />
              )}
              <TextField
                label="Claim values (optional)"
                value={claimValues}
                placeholder="age_over_18=true; nationality=DE|AT"
                onChange={setClaimValues}
              >
                <span className="hint">
                  A checked claim must have one of these values, or the presentation is rejected; true, false
                  and whole numbers are matched as such.
                </span>
              </TextField>
            </fieldset>
          )}
          <RelyingPartyFields value={relyingParty} onChange={setRelyingParty} />
          <ErrorAlert error={create.error} title="Could not create the policy" />
          {create.isSuccess && <Success>Policy {create.data.data.identifier} created.</Success>}
          <SubmitButton pending={create.isPending} disabled={!configuration}>
            Create policy
          </SubmitButton>
        </form>
      )}
    </>
  );
}
