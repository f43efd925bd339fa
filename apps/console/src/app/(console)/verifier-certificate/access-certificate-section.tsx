"use client";
import type { TKeyProvider } from "@cred/contracts/issuers";
import type { TVerifierCertificate } from "@cred/contracts/verifier-certificates";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SubmitButton, TextField } from "../../../components/form-fields";
import { ErrorAlert, Success } from "../../../components/status";
import { useTRPC } from "../../../lib/trpc";
import { KeyCustodyField } from "../issuers/key-custody-field";

/** Where a key is held, in a line (docs/key-custody.md). */
const keyLocationText = (location: TVerifierCertificate["keyLocation"]) =>
  location.provider === "pkcs11"
    ? `in the platform's PKCS#11 token (${location.keyReference})`
    : "sealed under the platform's master key";

/** Splits a comma- or whitespace-separated list; empty entries dropped. */
function listOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/** Offers the CSR as a file, so it can be handed to the access CA as is. */
function downloadPem(pem: string, fileName: string) {
  const url = URL.createObjectURL(new Blob([pem], { type: "application/pkcs10" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * The relying-party access certificate (WRPAC): the signing request made here
 * (VerifierCertificates_CreateSigningRequest), its PEM CSR to hand to the access CA, and importing the
 * chain the CA issued (VerifierCertificates_ImportAccessCertificate). The pending request comes with the
 * certificate (VerifierCertificates_Get, `signingRequest`).
 */
export function AccessCertificateSection({
  certificate,
  canManage,
}: {
  certificate: TVerifierCertificate;
  canManage: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: trpc.verifierCertificates.get.queryKey({}) });
  const [organisationName, setOrganisationName] = useState("");
  const [organisationIdentifier, setOrganisationIdentifier] = useState("");
  const [country, setCountry] = useState("");
  const [commonName, setCommonName] = useState("");
  const [dnsNames, setDnsNames] = useState("");
  const [policies, setPolicies] = useState("");
  const [contactUri, setContactUri] = useState("");
  const [contactEmail, setContactEmail] = useState("");
  const [keyProvider, setKeyProvider] = useState<TKeyProvider>("software");
  const [chain, setChain] = useState("");
  const [trustAnchor, setTrustAnchor] = useState("");
  const createRequest = useMutation(
    trpc.verifierCertificates.createSigningRequest.mutationOptions({ onSuccess: refresh }),
  );
  const importCertificate = useMutation(
    trpc.verifierCertificates.importAccessCertificate.mutationOptions({
      onSuccess: (result) => {
        queryClient.setQueryData(trpc.verifierCertificates.get.queryKey({}), result);
        setChain("");
        setTrustAnchor("");
      },
    }),
  );
  const pending = certificate.signingRequest;

  const submitRequest = (event: FormEvent) => {
    event.preventDefault();
    importCertificate.reset();
    const names = listOf(dnsNames);
    const certificatePolicies = listOf(policies);
    createRequest.mutate({
      organisationName,
      organisationIdentifier,
      country,
      ...(commonName.trim() ? { commonName: commonName.trim() } : {}),
      ...(names.length > 0 ? { dnsNames: names } : {}),
      ...(certificatePolicies.length > 0 ? { certificatePolicies } : {}),
      ...(contactUri.trim() ? { contactUri: contactUri.trim() } : {}),
      ...(contactEmail.trim() ? { contactEmail: contactEmail.trim() } : {}),
      ...(keyProvider !== "software" ? { keyCustody: { provider: keyProvider } } : {}),
    });
  };
  const submitImport = (event: FormEvent) => {
    event.preventDefault();
    createRequest.reset();
    importCertificate.mutate({ certificateChainPem: chain, trustAnchorPem: trustAnchor });
  };

  return (
    <section className="card" aria-labelledby="access-title" data-testid="access-certificate">
      <h2 id="access-title">Access certificate</h2>
      <p className="hint">
        A relying-party access certificate (ETSI TS 119 411-8) is issued by an access CA for a key made here:
        create the signing request, send the CSR to the CA, then import the chain it issued. The certificate
        in use keeps signing until then.
      </p>
      <p data-testid="verifier-key-location">
        The key of the certificate in use is held {keyLocationText(certificate.keyLocation)}.
      </p>
      {certificate.organisationIdentifiers.length > 0 && (
        <p data-testid="access-certificate-organisation">
          The certificate in use is an access certificate for{" "}
          <code>{certificate.organisationIdentifiers.join(", ")}</code>, valid until{" "}
          {new Date(certificate.notAfter).toLocaleDateString()}.
        </p>
      )}
      {pending ? (
        <div data-testid="signing-request">
          <h3>Pending signing request</h3>
          <dl className="facts">
            <dt>Subject</dt>
            <dd>{pending.subject}</dd>
            <dt>Created</dt>
            <dd>{new Date(pending.createdAt).toLocaleString()}</dd>
            <dt>Key</dt>
            <dd data-testid="signing-request-key-location">{keyLocationText(pending.keyLocation)}</dd>
          </dl>
          <pre data-testid="signing-request-pem">{pending.csrPem}</pre>
          <button type="button" onClick={() => downloadPem(pending.csrPem, "access-certificate-request.csr")}>
            Download CSR
          </button>
        </div>
      ) : (
        <p className="hint">No signing request is pending.</p>
      )}
      {canManage && (
        <form onSubmit={submitRequest} aria-labelledby="signing-request-title">
          <h3 id="signing-request-title">
            {pending ? "Replace the signing request" : "Create a signing request"}
          </h3>
          <TextField
            label="Organisation name (O)"
            required
            value={organisationName}
            onChange={setOrganisationName}
          />
          <TextField
            label="Organisation identifier (e.g. VATFI-12345678)"
            required
            value={organisationIdentifier}
            onChange={setOrganisationIdentifier}
          />
          <TextField
            label="Country (two capital letters)"
            required
            maxLength={2}
            value={country}
            onChange={setCountry}
          />
          <TextField label="Common name (optional)" value={commonName} onChange={setCommonName} />
          <TextField
            label="DNS names (optional; default: the public host)"
            value={dnsNames}
            onChange={setDnsNames}
          />
          <TextField
            label="Certificate policy OIDs (optional; default: NCP-l-eudiwrp 0.4.0.194118.1.2)"
            value={policies}
            onChange={setPolicies}
          />
          <TextField
            label="Contact website (optional, https)"
            type="url"
            value={contactUri}
            placeholder="https://example.com/support"
            onChange={setContactUri}
          />
          <TextField
            label="Contact email (optional)"
            type="email"
            value={contactEmail}
            onChange={setContactEmail}
          >
            <span className="hint">
              ETSI TS 119 411-8 wants a website, telephone number or email in the certificate; the access CA
              takes them from your registration.
            </span>
          </TextField>
          <KeyCustodyField value={keyProvider} onChange={setKeyProvider} />
          <ErrorAlert error={createRequest.error} title="Could not create the signing request" />
          {createRequest.isSuccess && <Success>Signing request created.</Success>}
          <SubmitButton pending={createRequest.isPending}>Create signing request</SubmitButton>
        </form>
      )}
      {canManage && pending && (
        <form onSubmit={submitImport} aria-labelledby="import-title">
          <h3 id="import-title">Import the issued certificate</h3>
          <label>
            Issued certificate chain (PEM, leaf first)
            <textarea required rows={8} value={chain} onChange={(e) => setChain(e.target.value)} />
          </label>
          <label>
            Access CA trust anchor (PEM)
            <textarea
              required
              rows={5}
              value={trustAnchor}
              onChange={(e) => setTrustAnchor(e.target.value)}
            />
          </label>
          <ErrorAlert error={importCertificate.error} title="Could not import the access certificate" />
          <SubmitButton pending={importCertificate.isPending} pendingLabel="Importing…">
            Import
          </SubmitButton>
        </form>
      )}
      {importCertificate.isSuccess && <Success>Access certificate imported.</Success>}
    </section>
  );
}
