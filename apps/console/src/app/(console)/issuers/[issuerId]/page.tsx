"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { TextField } from "../../../../components/form-fields";
import { useCan } from "../../../../components/session";
import { Badge, ErrorAlert, Loading, PageHeader, Success } from "../../../../components/status";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC } from "../../../../lib/trpc";
import { AttestationTrustCard } from "./attestation-trust-card";
import { IssuerDetailsForm } from "./issuer-details-form";
import { SigningCertificateCard } from "./signing-certificate-card";

export default function IssuerPage() {
  const { issuerId } = useParams<{ issuerId: string }>();
  const trpc = useTRPC();
  const canManage = useCan("issuers.manage");
  const issuer = useQuery(trpc.issuers.get.queryOptions({ issuerId }));
  const readiness = useQuery(trpc.issuers.getReadiness.queryOptions({ issuerId }));
  const refresh = useRefresh("issuers", "dashboard");
  const activate = useMutation(trpc.issuers.activate.mutationOptions({ onSuccess: refresh }));
  const update = useMutation(trpc.issuers.update.mutationOptions({ onSuccess: refresh }));
  const rotateKey = useMutation(trpc.issuers.rotateSigningKey.mutationOptions({ onSuccess: refresh }));
  const prepareKey = useMutation(trpc.issuers.prepareSigningKey.mutationOptions({ onSuccess: refresh }));
  const discardKey = useMutation(trpc.issuers.discardNextSigningKey.mutationOptions({ onSuccess: refresh }));
  const [locale, setLocale] = useState("en");
  const [walletName, setWalletName] = useState("");
  const [logoUri, setLogoUri] = useState("");
  const [logoAlt, setLogoAlt] = useState("");

  if (issuer.isPending) return <Loading />;
  if (issuer.isError) return <ErrorAlert error={issuer.error} title="Could not load the issuer" />;
  const data = issuer.data.data;
  const ready = readiness.data?.data.ready ?? false;

  const sameLocale = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  // Sets the name for a locale: replaces that locale's entry (keeping its other fields) or adds one.
  const saveDisplay = (e: FormEvent) => {
    e.preventDefault();
    const existing = data.display.find((d) => sameLocale(d.locale, locale));
    // A logo given here replaces the entry's; left empty, the entry keeps the one it has.
    const logo = logoUri ? { uri: logoUri, ...(logoAlt && { altText: logoAlt }) } : existing?.logo;
    const entry = { ...existing, locale, name: walletName || data.displayName, ...(logo && { logo }) };
    update.mutate(
      { issuerId, display: [...data.display.filter((d) => !sameLocale(d.locale, locale)), entry] },
      {
        onSuccess: () => {
          setWalletName("");
          setLogoUri("");
          setLogoAlt("");
        },
      },
    );
  };
  const removeDisplay = (entryLocale: string) =>
    update.mutate({ issuerId, display: data.display.filter((d) => d.locale !== entryLocale) });

  return (
    <>
      <p>
        <Link href="/issuers">← Issuers</Link>
      </p>
      <PageHeader title={data.displayName}>
        Organisation <code>{data.organisationReference}</code> · <Badge value={data.status} />
      </PageHeader>
      <dl className="facts">
        <dt>Issuer id</dt>
        <dd>
          <code>{data.id}</code>
        </dd>
        <dt>Credential issuer URL</dt>
        <dd>
          <code>{data.credentialIssuer}</code>
        </dd>
        <dt>Signing key</dt>
        <dd data-testid="signing-key">
          {data.signingKey.alg} <code>{data.signingKey.kid}</code>
        </dd>
        {data.nextSigningKey && (
          <>
            <dt>Next signing key (published, not signing yet)</dt>
            <dd data-testid="next-signing-key">
              <code>{data.nextSigningKey.kid}</code>
              {data.nextSigningKey.signingCertificate ? " · certificate set" : " · no certificate yet"}
            </dd>
          </>
        )}
        {data.previousSigningKeys.length > 0 && (
          <>
            <dt>Replaced keys, still published</dt>
            <dd>
              <ul className="plain" data-testid="previous-signing-keys">
                {data.previousSigningKeys.map((key) => (
                  <li key={key.kid}>
                    <code>{key.kid}</code> (replaced {key.retiredAt.slice(0, 16).replace("T", " ")} UTC)
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        <dt>Wallet display</dt>
        <dd>
          {data.display.length === 0 && "—"}
          <ul className="plain" data-testid="wallet-display">
            {data.display.map((d) => (
              <li key={d.locale}>
                {d.name} ({d.locale}){d.logo && <span className="hint"> · logo {d.logo.uri}</span>}
                {canManage && (
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Remove the ${d.locale} display entry`}
                    disabled={update.isPending}
                    onClick={() => removeDisplay(d.locale)}
                  >
                    Remove
                  </button>
                )}
              </li>
            ))}
          </ul>
        </dd>
      </dl>

      <section className="card" aria-labelledby="readiness-title">
        <h2 id="readiness-title">Readiness</h2>
        {readiness.isPending && <Loading label="Checking readiness…" />}
        <ErrorAlert error={readiness.error} />
        {readiness.data && (
          <>
            <p data-testid="readiness-summary" role="status">
              {ready
                ? "Ready: every requirement is satisfied."
                : "Not ready: some requirements are outstanding."}
            </p>
            <ol className="checklist">
              {readiness.data.data.items.map((item) => (
                <li
                  key={item.id}
                  className={`check check-${item.status}`}
                  data-testid={`readiness-${item.id}`}
                >
                  <span className="check-mark" aria-hidden="true">
                    {item.status === "satisfied" ? "✓" : "○"}
                  </span>
                  <div>
                    <strong>{item.title}</strong> <span className="visually-hidden">—</span>
                    <Badge value={item.status} />
                    <p>{item.detail}</p>
                    {item.status === "outstanding" && item.id === "active-credential-configuration" && (
                      <Link href={`/credential-configurations?issuerId=${data.id}`}>
                        Create a credential configuration
                      </Link>
                    )}
                  </div>
                </li>
              ))}
            </ol>
            <h3>Relying-party certificates of this environment</h3>
            <p className="hint">
              Verification needs them, issuance does not: they do not count towards readiness.
            </p>
            <ul className="checklist">
              {readiness.data.data.relyingPartyCertificates.map((certificate) => (
                <li
                  key={certificate.registrationCertificateId ?? certificate.id}
                  className={`check check-${certificate.status === "valid" ? "satisfied" : "outstanding"}`}
                  data-testid={`readiness-${certificate.registrationCertificateId ?? certificate.id}`}
                >
                  <span className="check-mark" aria-hidden="true">
                    {certificate.status === "valid" ? "✓" : certificate.status === "absent" ? "○" : "!"}
                  </span>
                  <div>
                    <strong>{certificate.title}</strong> <span className="visually-hidden">—</span>
                    <Badge value={certificate.status} />
                    <p>{certificate.detail}</p>
                    {certificate.status !== "valid" && (
                      <Link
                        href={
                          certificate.relyingPartyId
                            ? `/relying-parties/${certificate.relyingPartyId}`
                            : "/verifier-certificate"
                        }
                      >
                        Manage the relying-party certificates
                      </Link>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
        {canManage && data.status === "draft" && (
          <>
            <ErrorAlert error={activate.error} title="Could not activate" />
            {ready ? (
              <button
                type="button"
                onClick={() => activate.mutate({ issuerId })}
                disabled={activate.isPending}
              >
                {activate.isPending ? "Activating…" : "Activate issuer"}
              </button>
            ) : (
              <p className="hint">Activation is offered once every item above is satisfied.</p>
            )}
          </>
        )}
        {data.status === "active" && <Success>This issuer is active and can issue credentials.</Success>}
      </section>

      {canManage && <IssuerDetailsForm issuer={data} />}

      {canManage && (
        <form onSubmit={saveDisplay} className="card" aria-labelledby="display-title">
          <h2 id="display-title">Wallet display metadata</h2>
          <p className="hint">
            Sets the name (and logo) wallets show for a locale; an existing entry for it is replaced, keeping
            its logo unless a new one is given.
          </p>
          <div className="grid">
            <TextField label="Locale" required value={locale} onChange={setLocale} />
            <TextField
              label="Name shown in wallets"
              value={walletName}
              placeholder={data.displayName}
              onChange={setWalletName}
            />
            <TextField
              label="Wallet logo URL (optional, https)"
              type="url"
              value={logoUri}
              placeholder="https://example.com/logo.png"
              onChange={setLogoUri}
            />
            <TextField
              label="Wallet logo text for screen readers (optional)"
              value={logoAlt}
              onChange={setLogoAlt}
            />
          </div>
          <ErrorAlert error={update.error} title="Could not update the issuer" />
          {update.isSuccess && <Success>Wallet display saved.</Success>}
          <button type="submit" className="secondary" disabled={update.isPending}>
            Save display entry
          </button>
        </form>
      )}

      {canManage && (
        <section className="card" aria-labelledby="signing-key-title">
          <h2 id="signing-key-title">Signing key</h2>
          <p className="hint">
            Rotating gives the issuer a new key for everything it signs from now on. Keep the old key
            published so that credentials it signed keep verifying; withdraw it only if it may be compromised:
            those credentials then stop verifying and should be re-issued.
          </p>
          <p className="hint">
            To keep a certificate chain in every credential across the rotation, prepare the next key first,
            set its certificate below, then rotate: the rotation switches to it with its chain.
          </p>
          <ErrorAlert error={rotateKey.error} title="Could not rotate the signing key" />
          <ErrorAlert error={prepareKey.error ?? discardKey.error} title="Could not change the next key" />
          {rotateKey.isSuccess && (
            <Success>
              New signing key <code>{rotateKey.data.data.signingKey.kid}</code>.
            </Success>
          )}
          <div className="actions">
            {data.nextSigningKey ? (
              <button
                type="button"
                className="secondary"
                disabled={discardKey.isPending}
                onClick={() => discardKey.mutate({ issuerId })}
              >
                Discard next key
              </button>
            ) : (
              <button
                type="button"
                className="secondary"
                disabled={prepareKey.isPending}
                onClick={() => prepareKey.mutate({ issuerId })}
              >
                Prepare next key
              </button>
            )}
            <button
              type="button"
              className="secondary"
              disabled={rotateKey.isPending}
              onClick={() => {
                if (window.confirm("Rotate the signing key? The current key stays published."))
                  rotateKey.mutate({ issuerId, replacedKey: "keep" });
              }}
            >
              Rotate key
            </button>
            <button
              type="button"
              className="secondary danger"
              disabled={rotateKey.isPending}
              onClick={() => {
                if (
                  window.confirm(
                    "Rotate the signing key and withdraw the current one? Credentials it signed will no longer verify.",
                  )
                )
                  rotateKey.mutate({ issuerId, replacedKey: "withdraw" });
              }}
            >
              Rotate and withdraw the current key
            </button>
          </div>
        </section>
      )}

      <SigningCertificateCard issuer={data} />
      <AttestationTrustCard
        issuer={data}
        setting="walletAttestation"
        title="Wallet attestation"
        hint="HAIP wallets authenticate with an attestation from their wallet provider. Trust a provider by its CA certificate; requiring an attestation turns away every other wallet at the authorization and token endpoints."
        rootsLabel="Wallet provider CA certificates (PEM, one or more)"
        requiredLabel="Require a wallet attestation"
      />
      <AttestationTrustCard
        issuer={data}
        setting="keyAttestation"
        title="Key attestation"
        hint="A key attestation shows how a wallet protects the keys credentials are bound to. Trust an attester by its CA certificate; requiring one refuses key proofs without it, and the levels limit which key storage and user authentication are accepted."
        rootsLabel="Key attester CA certificates (PEM, one or more)"
        requiredLabel="Require a key attestation"
      />
    </>
  );
}
