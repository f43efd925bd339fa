"use client";
import type { TIssuer } from "@cred/contracts/issuers";
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ChoiceField, SubmitButton } from "../../../../components/form-fields";
import { useCan } from "../../../../components/session";
import { Badge, ErrorAlert, Success } from "../../../../components/status";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC } from "../../../../lib/trpc";

/**
 * The X.509 chain of the issuer's signing key, sent as `x5c` (HAIP): the request to give a CA
 * (Issuers_GetCertificateSigningRequest), setting the chain it returns and removing it.
 */
export function SigningCertificateCard({ issuer }: { issuer: TIssuer }) {
  const trpc = useTRPC();
  const canManage = useCan("issuers.manage");
  const refresh = useRefresh("issuers");
  const [chosen, setKey] = useState<"current" | "next">("current");
  // The next key's certificate is offered only while one is prepared.
  const key = issuer.nextSigningKey ? chosen : "current";
  const [showRequest, setShowRequest] = useState(false);
  const request = useQuery({
    ...trpc.issuers.getCertificateSigningRequest.queryOptions({ issuerId: issuer.id, key }),
    enabled: showRequest,
  });
  const [chain, setChain] = useState("");
  const set = useMutation(
    trpc.issuers.setSigningCertificate.mutationOptions({
      onSuccess: () => {
        setChain("");
        refresh();
      },
    }),
  );
  const remove = useMutation(trpc.issuers.deleteSigningCertificate.mutationOptions({ onSuccess: refresh }));
  const certificate =
    key === "next" ? (issuer.nextSigningKey?.signingCertificate ?? null) : issuer.signingCertificate;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    set.mutate({ issuerId: issuer.id, certificateChainPem: chain, key });
  };

  return (
    <section className="card" aria-labelledby="signing-certificate-title">
      <h2 id="signing-certificate-title">Signing certificate</h2>
      <p className="hint">
        Wallets and verifiers that trust issuers by X.509 (HAIP) need the key's certificate chain in every
        credential. Give the certificate signing request to your CA, then set the chain it returns. A rotation
        switches to the prepared next key with its chain; without a prepared key it removes the chain.
      </p>
      {issuer.nextSigningKey && (
        <ChoiceField
          label="Certificate of"
          value={key}
          onChange={(value) => {
            setKey(value as "current" | "next");
            setShowRequest(false);
          }}
          choices={[
            { value: "current", label: "the current signing key" },
            { value: "next", label: "the prepared next key" },
          ]}
        />
      )}
      {certificate ? (
        <dl className="facts" data-testid="signing-certificate">
          <dt>State</dt>
          <dd>
            <Badge value={certificate.inUse ? "in use" : "not valid now"} />
          </dd>
          <dt>Subject</dt>
          <dd>{certificate.subject}</dd>
          <dt>Issued by</dt>
          <dd>{certificate.issuer}</dd>
          <dt>Valid</dt>
          <dd>
            {new Date(certificate.notBefore).toLocaleDateString()} –{" "}
            {new Date(certificate.notAfter).toLocaleDateString()}
          </dd>
          <dt>Sent in x5c</dt>
          <dd>
            {certificate.x5cLength} certificate{certificate.x5cLength === 1 ? "" : "s"}
          </dd>
        </dl>
      ) : (
        <p data-testid="signing-certificate">None: credentials identify the key by kid only.</p>
      )}
      <button type="button" className="secondary" onClick={() => setShowRequest(true)} disabled={showRequest}>
        Show certificate signing request
      </button>
      <ErrorAlert error={request.error} title="Could not make the request" />
      {request.data && (
        <label>
          Certificate signing request (PEM) for key <code>{request.data.data.signingKid}</code>
          <textarea readOnly rows={9} value={request.data.data.certificateSigningRequestPem} />
        </label>
      )}
      {canManage && (
        <form onSubmit={submit} aria-label="Set the certificate chain">
          <label>
            Certificate chain from your CA (PEM, leaf first)
            <textarea required rows={8} value={chain} onChange={(e) => setChain(e.target.value)} />
          </label>
          <ErrorAlert error={set.error} title="Could not use this chain" />
          {set.isSuccess && <Success>Certificate chain set.</Success>}
          <div className="actions">
            <SubmitButton pending={set.isPending}>Set chain</SubmitButton>
            {certificate && (
              <button
                type="button"
                className="secondary danger"
                disabled={remove.isPending}
                onClick={() => {
                  if (window.confirm("Remove the certificate chain? Credentials then carry kid only."))
                    remove.mutate({ issuerId: issuer.id, key });
                }}
              >
                Remove chain
              </button>
            )}
          </div>
          <ErrorAlert error={remove.error} title="Could not remove the chain" />
        </form>
      )}
    </section>
  );
}
