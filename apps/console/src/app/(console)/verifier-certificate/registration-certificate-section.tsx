"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../../components/form-fields";
import { ErrorAlert, Loading, Success } from "../../../components/status";
import { useTRPC } from "../../../lib/trpc";

function httpStatusOf(error: unknown): number | undefined {
  return (error as { data?: { httpStatus?: number } | null } | null)?.data?.httpStatus;
}

/**
 * The relying party's registration certificate (WRPRC, ETSI TS 119 475): what it registers
 * (VerifierRegistrationCertificates_Get; 404 means none), replacing it (…_Upload) and removing it
 * (…_Delete).
 */
export function RegistrationCertificateSection({ canManage }: { canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queryKey = trpc.verifierCertificates.getRegistration.queryKey({});
  const current = useQuery(trpc.verifierCertificates.getRegistration.queryOptions({}));
  const [jwt, setJwt] = useState("");
  const [trustAnchor, setTrustAnchor] = useState("");
  const upload = useMutation(
    trpc.verifierCertificates.uploadRegistration.mutationOptions({
      onSuccess: (result) => {
        queryClient.setQueryData(queryKey, result);
        setJwt("");
        setTrustAnchor("");
      },
    }),
  );
  const remove = useMutation(
    trpc.verifierCertificates.deleteRegistration.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey }),
    }),
  );
  const none = httpStatusOf(current.error) === 404;
  const registration = none ? undefined : current.data?.data;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    remove.reset();
    upload.mutate({ registrationCertificate: jwt.trim(), trustAnchorPem: trustAnchor });
  };

  return (
    <section className="card" aria-labelledby="registration-title" data-testid="registration-certificate">
      <h2 id="registration-title">Registration certificate</h2>
      <p className="hint">
        The relying party's registration (ETSI TS 119 475) is carried in every request object; verifications
        may ask only for the credentials and claims it registers.
      </p>
      {current.isPending && <Loading />}
      {!none && <ErrorAlert error={current.error} title="Could not read the registration certificate" />}
      {none && <p data-testid="no-registration">No registration certificate is installed.</p>}
      {registration && (
        <>
          <dl className="facts">
            <dt>Relying party</dt>
            <dd data-testid="registration-relying-party">
              {registration.name ?? "(no name)"} — <code>{registration.subjectIds.join(", ")}</code>
            </dd>
            <dt>Intermediary</dt>
            <dd data-testid="registration-intermediary">
              {registration.intermediary ? (
                <>
                  {registration.intermediary.name ?? "(no name)"} —{" "}
                  <code>{registration.intermediary.ids.join(", ")}</code>
                </>
              ) : (
                "none (the relying party acts itself)"
              )}
            </dd>
            <dt>Registrar</dt>
            <dd>{registration.registrar}</dd>
            <dt>Issued</dt>
            <dd>{registration.issuedAt ? new Date(registration.issuedAt).toLocaleString() : "—"}</dd>
            <dt>Expires</dt>
            <dd data-testid="registration-expiry">
              {registration.expiresAt ? new Date(registration.expiresAt).toLocaleString() : "no expiry given"}
            </dd>
          </dl>
          <h3>Registered credentials</h3>
          <ul data-testid="registration-credentials">
            {registration.credentials.map((credential, index) => (
              <li key={index}>
                <code>{credential.format}</code> {credential.types.join(", ")}:{" "}
                {credential.claims.length > 0
                  ? credential.claims.map((path) => path.join(".")).join(", ")
                  : "no claims"}
              </li>
            ))}
          </ul>
          {canManage && (
            <button
              type="button"
              disabled={remove.isPending}
              onClick={() => {
                if (
                  window.confirm("Remove the registration certificate? New verifications no longer carry it.")
                )
                  remove.mutate({});
              }}
            >
              Remove registration certificate
            </button>
          )}
        </>
      )}
      <ErrorAlert error={remove.error} title="Could not remove the registration certificate" />
      {remove.isSuccess && <Success>Registration certificate removed.</Success>}
      {canManage && (
        <form onSubmit={submit} aria-labelledby="registration-upload-title">
          <h3 id="registration-upload-title">
            {registration ? "Replace" : "Upload"} the registration certificate
          </h3>
          <label>
            Registration certificate (JWT, typ rc-wrp+jwt)
            <textarea required rows={6} value={jwt} onChange={(e) => setJwt(e.target.value)} />
          </label>
          <label>
            Registrar trust anchor (PEM)
            <textarea
              required
              rows={5}
              value={trustAnchor}
              onChange={(e) => setTrustAnchor(e.target.value)}
            />
          </label>
          <ErrorAlert error={upload.error} title="Could not install the registration certificate" />
          {upload.isSuccess && <Success>Registration certificate installed.</Success>}
          <SubmitButton pending={upload.isPending} pendingLabel="Uploading…">
            Upload registration certificate
          </SubmitButton>
        </form>
      )}
    </section>
  );
}
