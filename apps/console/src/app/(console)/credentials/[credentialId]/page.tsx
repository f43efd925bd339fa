"use client";
import type { TCredential } from "@cred/contracts/credentials";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { CredentialActions } from "../../../../components/credential-actions";
import { IssuerCell, Time, useIssuerAndConfigurationChoices } from "../../../../components/record-choices";
import { useCan } from "../../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader } from "../../../../components/status";
import { useTRPC } from "../../../../lib/trpc";
import { routeParam } from "../../../../lib/url-filters";

export default function CredentialPage() {
  const { credentialId } = useParams<{ credentialId: string }>();
  const trpc = useTRPC();
  const canRead = useCan("credentials.read");
  const credential = useQuery({
    ...trpc.credentials.get.queryOptions({ credentialId: routeParam(credentialId) }),
    enabled: canRead,
  });

  const back = (
    <p>
      <Link href="/credentials">← Credentials</Link>
    </p>
  );
  if (!canRead)
    return (
      <>
        {back}
        <PageHeader title="Credential" />
        <Empty>Your role cannot read credentials.</Empty>
      </>
    );
  if (credential.isPending) return <Loading />;
  if (credential.isError)
    return (
      <>
        {back}
        <PageHeader title="Credential" />
        <ErrorAlert error={credential.error} title="Could not load the credential" />
      </>
    );
  const c = credential.data.data;
  return (
    <>
      {back}
      <PageHeader title="Credential">
        <code>{c.id}</code> · <Badge value={c.status} testId="credential-status" />
      </PageHeader>
      <section className="card" aria-labelledby="credential-facts" data-testid="credential">
        <h2 id="credential-facts">State</h2>
        <CredentialFacts credential={c} />
        <CredentialActions credential={c} />
      </section>
    </>
  );
}

/** What is kept of a credential: its state and dates, where verifiers read its status, its holder key. */
function CredentialFacts({ credential: c }: { credential: TCredential }) {
  const { issuerName } = useIssuerAndConfigurationChoices();
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>{STATE_WORDS[c.status]}</dd>
      <dt>Issued</dt>
      <dd data-testid="credential-issued">
        <Time at={c.issuedAt} />
      </dd>
      <dt>Expires</dt>
      <dd data-testid="credential-expires">
        <Time at={c.expiresAt} />
      </dd>
      {c.suspendedAt && (
        <>
          <dt>{c.status === "revoked" ? "Suspended (before its revocation)" : "Suspended since"}</dt>
          <dd data-testid="credential-suspended">
            <Time at={c.suspendedAt} />
          </dd>
        </>
      )}
      {c.revokedAt && (
        <>
          <dt>Revoked</dt>
          <dd data-testid="credential-revoked">
            <Time at={c.revokedAt} />
          </dd>
        </>
      )}
      <dt>Credential configuration</dt>
      <dd>
        <code>{c.credentialConfiguration}</code> (version {c.configurationVersion})
      </dd>
      <dt>Issuer</dt>
      <dd>
        <IssuerCell id={c.issuerId} name={issuerName(c.issuerId)} />
      </dd>
      <dt>Issuance transaction</dt>
      <dd>
        <Link href={`/transactions/${c.transactionId}`}>
          <code>{c.transactionId}</code>
        </Link>
        <div className="hint">
          <Link href={`/credentials?transactionId=${encodeURIComponent(c.transactionId)}`}>
            Every credential of this transaction
          </Link>{" "}
          (a batch&apos;s copies change state together)
        </div>
      </dd>
      <dt>Status list</dt>
      <dd data-testid="credential-status-list">
        {c.statusList ? (
          <>
            <code>{c.statusList.uri}</code>
            <div className="hint">
              Index <code data-testid="credential-status-index">{c.statusList.idx}</code>
            </div>
          </>
        ) : (
          "None: issued without status (its state cannot change)"
        )}
      </dd>
      <dt>Holder key thumbprint</dt>
      <dd data-testid="credential-holder-key">
        {c.holderKeyThumbprint ? <code>{c.holderKeyThumbprint}</code> : "—"}
        <div className="hint">
          {c.holderKeyThumbprint
            ? "RFC 7638 SHA-256 thumbprint of the key the credential is bound to (not the key itself)."
            : "Not recorded: issued without holder binding, or before thumbprints were kept."}
        </div>
      </dd>
    </dl>
  );
}

const STATE_WORDS: Record<TCredential["status"], string> = {
  active: "Active: verifiers accept it.",
  suspended: "Suspended: verifiers refuse it until it is reinstated.",
  revoked: "Revoked: final; verifiers refuse it.",
  expired: "Expired: past its expiry; verifiers refuse it.",
};
