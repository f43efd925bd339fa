"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../../components/form-fields";
import { useCan } from "../../../components/session";
import { Badge, ErrorAlert, Loading, PageHeader, Success } from "../../../components/status";
import { useTRPC } from "../../../lib/trpc";
import { AccessCertificateSection } from "./access-certificate-section";
import { RegistrationCertificateSection } from "./registration-certificate-section";

/**
 * The environment's verifier certificate: the X.509 identity wallets see in presentation requests
 * (VerifierCertificates_Get, generated on first use), and replacing it with an uploaded chain and key
 * (VerifierCertificates_Upload); the relying-party access certificate (signing request and import) and
 * registration certificate.
 */
export default function VerifierCertificatePage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canManage = useCan("verification-policies.manage");
  const current = useQuery(trpc.verifierCertificates.get.queryOptions({}));
  const [chain, setChain] = useState("");
  const [key, setKey] = useState("");
  const upload = useMutation(
    trpc.verifierCertificates.upload.mutationOptions({
      onSuccess: (result) => {
        queryClient.setQueryData(trpc.verifierCertificates.get.queryKey({}), result);
        setChain("");
        setKey("");
      },
    }),
  );
  const certificate = current.data?.data;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.mutate({ certificateChainPem: chain, privateKeyPem: key });
  };

  return (
    <>
      <PageHeader title="Verifier certificate">
        Wallets see this certificate in every presentation request of this environment. One is generated on
        first use; upload your own chain (issued for your public host name) to replace it.
      </PageHeader>
      {current.isPending && <Loading />}
      <ErrorAlert error={current.error} title="Could not read the certificate" />
      {certificate && (
        <section className="card" aria-labelledby="current-title" data-testid="verifier-certificate">
          <h2 id="current-title">Current certificate</h2>
          <p>
            <Badge value={certificate.uploaded ? "uploaded" : "generated"} />
          </p>
          <dl className="facts">
            <dt>Subject</dt>
            <dd>{certificate.subject}</dd>
            <dt>Issuer</dt>
            <dd>{certificate.issuer}</dd>
            <dt>DNS names</dt>
            <dd>{certificate.dnsNames.join(", ")}</dd>
            <dt>Valid</dt>
            <dd>
              {new Date(certificate.notBefore).toLocaleDateString()} –{" "}
              {new Date(certificate.notAfter).toLocaleDateString()}
            </dd>
            <dt>client_id (x509_hash)</dt>
            <dd>
              <code>{certificate.clientIds.x509Hash}</code>
            </dd>
            <dt>client_id (x509_san_dns)</dt>
            <dd>
              <code>{certificate.clientIds.x509SanDns}</code>
              {!certificate.x509SanDnsUsable && (
                <div className="hint">
                  Not usable: this server's host is an IP address, or no DNS name of the certificate is it
                  (see the warnings).
                </div>
              )}
            </dd>
          </dl>
          {certificate.warnings.length > 0 && (
            <ul className="alert">
              {certificate.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          )}
        </section>
      )}
      {canManage && (
        <form onSubmit={submit} className="card" aria-labelledby="upload-title">
          <h2 id="upload-title">Replace the certificate</h2>
          <p className="hint">
            Pending verifications whose client_id the new certificate does not carry can no longer be fetched
            by wallets.
          </p>
          <label>
            Certificate chain (PEM, leaf first)
            <textarea required rows={8} value={chain} onChange={(e) => setChain(e.target.value)} />
          </label>
          <label>
            Private key of the leaf (PEM, unencrypted)
            <textarea required rows={5} value={key} onChange={(e) => setKey(e.target.value)} />
          </label>
          <ErrorAlert error={upload.error} title="Could not use this certificate" />
          {upload.isSuccess && <Success>Certificate replaced.</Success>}
          <SubmitButton pending={upload.isPending}>Upload</SubmitButton>
        </form>
      )}
      {certificate && <AccessCertificateSection certificate={certificate} canManage={canManage} />}
      <RegistrationCertificateSection canManage={canManage} />
    </>
  );
}
