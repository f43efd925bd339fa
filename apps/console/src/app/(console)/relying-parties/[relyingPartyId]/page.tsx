"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../../../components/form-fields";
import { useCan } from "../../../../components/session";
import { Empty, ErrorAlert, Loading, PageHeader, Success } from "../../../../components/status";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC } from "../../../../lib/trpc";
import { routeParam } from "../../../../lib/url-filters";

/** A relying party (RelyingParties_Get) with its registration certificates: listed, added, removed by id. */
export default function RelyingPartyPage() {
  const { relyingPartyId } = useParams<{ relyingPartyId: string }>();
  const id = routeParam(relyingPartyId);
  const trpc = useTRPC();
  const router = useRouter();
  const canRead = useCan("verification-policies.read");
  const canManage = useCan("verification-policies.manage");
  const party = useQuery({
    ...trpc.relyingParties.get.queryOptions({ relyingPartyId: id }),
    enabled: canRead,
  });
  const refresh = useRefresh("relyingParties", "verifierCertificates");
  const remove = useMutation(
    trpc.relyingParties.delete.mutationOptions({
      onSuccess: async () => {
        await refresh();
        router.push("/relying-parties");
      },
    }),
  );
  const back = (
    <p>
      <Link href="/relying-parties">← Relying parties</Link>
    </p>
  );
  if (!canRead)
    return (
      <>
        {back}
        <PageHeader title="Relying party" />
        <Empty>Your role cannot read relying parties.</Empty>
      </>
    );
  if (party.isPending) return <Loading />;
  if (party.isError)
    return (
      <>
        {back}
        <PageHeader title="Relying party" />
        <ErrorAlert error={party.error} title="Could not load the relying party" />
      </>
    );
  const p = party.data.data;
  return (
    <>
      {back}
      <PageHeader title={p.name}>
        <code>{p.id}</code>
      </PageHeader>
      <section className="card" aria-labelledby="relying-party-identity" data-testid="relying-party">
        <h2 id="relying-party-identity">Identity</h2>
        <dl className="facts">
          <dt>Identifiers</dt>
          <dd data-testid="relying-party-identifiers">
            <code>{p.identifiers.join(", ")}</code>
          </dd>
          <dt>Legal name</dt>
          <dd>{p.legalName ?? "—"}</dd>
          <dt>Country</dt>
          <dd>{p.country ?? "—"}</dd>
          <dt>Information</dt>
          <dd>{p.infoUri ?? "—"}</dd>
          <dt>Privacy policy</dt>
          <dd>{p.privacyPolicyUri ?? "—"}</dd>
          <dt>Register</dt>
          <dd>{p.registryUri ?? "—"}</dd>
        </dl>
        {canManage && (
          <button
            type="button"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm("Delete the relying party and its registration certificates?"))
                remove.mutate({ relyingPartyId: id });
            }}
          >
            Delete relying party
          </button>
        )}
        <ErrorAlert error={remove.error} title="Could not delete the relying party" />
      </section>
      <RegistrationCertificates relyingPartyId={id} canManage={canManage} />
    </>
  );
}

function RegistrationCertificates({
  relyingPartyId,
  canManage,
}: {
  relyingPartyId: string;
  canManage: boolean;
}) {
  const trpc = useTRPC();
  const refresh = useRefresh("relyingParties", "verifierCertificates");
  const list = useQuery(
    trpc.relyingParties.listRegistrationCertificates.queryOptions({ relyingPartyId, limit: 100 }),
  );
  const [jwt, setJwt] = useState("");
  const [trustAnchor, setTrustAnchor] = useState("");
  const add = useMutation(
    trpc.relyingParties.addRegistrationCertificate.mutationOptions({
      onSuccess: async () => {
        setJwt("");
        setTrustAnchor("");
        await refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.verifierCertificates.removeRegistration.mutationOptions({ onSuccess: () => refresh() }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    remove.reset();
    add.mutate({ relyingPartyId, registrationCertificate: jwt.trim(), trustAnchorPem: trustAnchor });
  };
  const certificates = list.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="rp-registrations" data-testid="relying-party-registrations">
      <h2 id="rp-registrations">Registration certificates</h2>
      <p className="hint">
        Each names this relying party (<code>sub</code>) and this environment&apos;s access certificate as the
        intermediary acting for it (<code>act.sub</code>). Verifications for the party carry them in
        verifier_info and may ask only for what they register.
      </p>
      {list.isPending && <Loading />}
      <ErrorAlert error={list.error} title="Could not read the registration certificates" />
      {list.isSuccess && certificates.length === 0 && <p>No registration certificates yet.</p>}
      {certificates.length > 0 && (
        <table data-testid="relying-party-registration-list">
          <caption className="visually-hidden">Registration certificates</caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Registers</th>
              <th scope="col">Expires</th>
              {canManage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {certificates.map((c) => (
              <tr key={c.id} data-testid={`registration-${c.id}`}>
                <td>
                  <code>{c.id}</code>
                  <div className="hint">{c.name ?? "(no name)"}</div>
                </td>
                <td>
                  {c.credentials
                    .map(
                      (credential) =>
                        `${credential.types.join(", ")}: ${credential.claims.map((path) => path.join(".")).join(", ") || "no claims"}`,
                    )
                    .join("; ")}
                </td>
                <td>{c.expiresAt ? new Date(c.expiresAt).toLocaleString() : "no expiry given"}</td>
                {canManage && (
                  <td>
                    <button
                      type="button"
                      disabled={remove.isPending}
                      onClick={() => {
                        if (window.confirm(`Remove registration certificate ${c.id}?`))
                          remove.mutate({ registrationCertificateId: c.id });
                      }}
                    >
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorAlert error={remove.error} title="Could not remove the registration certificate" />
      {remove.isSuccess && <Success>Registration certificate removed.</Success>}
      {canManage && (
        <form onSubmit={submit} aria-labelledby="rp-registration-add">
          <h3 id="rp-registration-add">Add a registration certificate</h3>
          <label>
            Registration certificate (JWT, typ rc-wrp+jwt)
            <textarea required rows={6} value={jwt} onChange={(e) => setJwt(e.target.value)} />
          </label>
          <label>
            Registrar&apos;s root certificate (PEM)
            <textarea
              required
              rows={6}
              value={trustAnchor}
              onChange={(e) => setTrustAnchor(e.target.value)}
            />
          </label>
          <ErrorAlert error={add.error} title="Could not add the registration certificate" />
          {add.isSuccess && <Success>Registration certificate added.</Success>}
          <SubmitButton pending={add.isPending} pendingLabel="Checking…">
            Add registration certificate
          </SubmitButton>
        </form>
      )}
    </section>
  );
}
