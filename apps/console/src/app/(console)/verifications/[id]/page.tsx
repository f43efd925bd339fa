"use client";
import type { TVerificationSession } from "@cred/contracts/verification-sessions";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useCan } from "../../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader } from "../../../../components/status";
import { useTRPC } from "../../../../lib/trpc";
import {
  type CheckOutcome,
  checkLabel,
  checkSentence,
  reasonSentence,
} from "../../../../lib/verification-words";

type Result = NonNullable<TVerificationSession["result"]>;

/** A claim value as text: strings as they are, anything else as JSON. */
const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const when = (iso: string) => <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;

/** The outcome of a session as a sentence. */
function outcomeSentence(session: TVerificationSession): string {
  switch (session.status) {
    case "pending":
      return "Waiting for the holder's wallet to answer.";
    case "expired":
      return "Nobody answered before the request expired; nothing was disclosed.";
    case "cancelled":
      return "The request was cancelled before anyone answered; nothing was disclosed.";
    case "verified":
      return "Verified: the presented credentials passed every check the policy requires.";
    case "rejected":
      return "Rejected: the presentation did not satisfy the policy (the reasons follow).";
  }
}

export default function VerificationSessionPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const canRead = useCan("verification.read");
  const session = useQuery({ ...trpc.verifications.getSession.queryOptions({ id }), enabled: canRead });
  if (!canRead) {
    return (
      <>
        <PageHeader title="Verification session" />
        <Empty>Your role cannot read verification sessions.</Empty>
      </>
    );
  }
  if (session.isPending) return <Loading />;
  if (session.isError) return <ErrorAlert error={session.error} title="Could not load the session" />;
  const s = session.data.data;
  const decided = s.status === "verified" || s.status === "rejected";
  return (
    <>
      <PageHeader title="Verification session">
        <Link href="/verifications">All verifications</Link>
      </PageHeader>
      <section className="card" aria-labelledby="session-title">
        <h2 id="session-title">
          <code>{s.id}</code> <Badge value={s.status} testId="session-status" />
        </h2>
        <p data-testid="session-outcome">{outcomeSentence(s)}</p>
        <dl className="facts">
          <dt>Policy</dt>
          <dd>
            <code>{s.policy}</code>
          </dd>
          {s.relyingPartyId && (
            <>
              <dt>For relying party</dt>
              <dd data-testid="session-relying-party">
                <Link href={`/relying-parties/${s.relyingPartyId}`}>
                  <code>{s.relyingPartyId}</code>
                </Link>
              </dd>
            </>
          )}
          <dt>Purpose</dt>
          <dd>{s.purpose ?? "—"}</dd>
          <dt>Created</dt>
          <dd>{when(s.createdAt)}</dd>
          <dt>{s.status === "pending" ? "Expires" : "Expiry"}</dt>
          <dd>{when(s.expiresAt)}</dd>
          {s.result && (
            <>
              <dt>Decided</dt>
              <dd>{when(s.result.decidedAt)}</dd>
            </>
          )}
        </dl>
      </section>
      {s.result ? (
        <ResultDetails result={s.result} />
      ) : (
        decided && (
          <section className="card" aria-labelledby="result-title" data-testid="result-unavailable">
            <h2 id="result-title">Checks and disclosed claims</h2>
            <p>
              No longer available.{" "}
              {s.resultWithheld
                ? "The policy shows the result only to the relying party that holds the response code of the holder's redirect, so the console cannot read it."
                : "The API no longer returns this session's result."}
            </p>
          </section>
        )
      )}
    </>
  );
}

function ResultDetails({ result }: { result: Result }) {
  return (
    <>
      {result.reasons && result.reasons.length > 0 && (
        <section className="card" aria-labelledby="reasons-title">
          <h2 id="reasons-title">
            {result.outcome === "verified" ? "Presentations set aside" : "Why it was rejected"}
          </h2>
          {result.outcome === "verified" && (
            <p className="hint">These presentations were discarded; the others satisfied the policy.</p>
          )}
          <ul data-testid="session-reasons">
            {result.reasons.map((r) => (
              <li key={`${r.code}:${r.credentialQueryId ?? ""}:${r.message}`}>
                {reasonSentence(r.code) ?? r.message}
                <div className="hint">
                  <code>{r.code}</code>
                  {r.credentialQueryId && (
                    <>
                      {" "}
                      · credential <code>{r.credentialQueryId}</code>
                    </>
                  )}
                  {reasonSentence(r.code) && <> · {r.message}</>}
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
      {result.credentials.length === 0 ? (
        <section className="card" aria-labelledby="credentials-title">
          <h2 id="credentials-title">Credentials</h2>
          <Empty>No credential was accepted, so no claims were disclosed.</Empty>
        </section>
      ) : (
        result.credentials.map((c) => (
          <section
            key={c.credentialQueryId}
            className="card"
            aria-labelledby={`credential-${c.credentialQueryId}`}
            data-testid={`credential-${c.credentialQueryId}`}
          >
            <h2 id={`credential-${c.credentialQueryId}`}>
              Credential <code>{c.credentialQueryId}</code>
            </h2>
            <dl className="facts">
              <dt>Type</dt>
              <dd>
                <code>{c.credentialType}</code>
              </dd>
              <dt>Issuer</dt>
              <dd>
                {c.issuerId ? (
                  <Link href={`/issuers/${encodeURIComponent(c.issuerId)}`}>
                    <code>{c.issuer}</code>
                  </Link>
                ) : (
                  <>
                    <code>{c.issuer}</code> <span className="hint">(external issuer)</span>
                  </>
                )}
              </dd>
            </dl>
            <table data-testid="credential-checks">
              <caption>Checks of {c.credentialQueryId}</caption>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">What it means</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(c.checks).map(([name, outcome]) => (
                  <tr key={name}>
                    <th scope="row">{checkLabel(name)}</th>
                    <td>
                      <Badge value={outcome} />
                    </td>
                    <td>{checkSentence(name, outcome as CheckOutcome)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <table data-testid="disclosed-claims">
              <caption>Disclosed claims of {c.credentialQueryId} (only those the policy asked for)</caption>
              <thead>
                <tr>
                  <th scope="col">Claim</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {Object.keys(c.claims).length === 0 ? (
                  <tr>
                    <td colSpan={2}>None.</td>
                  </tr>
                ) : (
                  Object.entries(c.claims).map(([name, value]) => (
                    <tr key={name}>
                      <th scope="row">{name}</th>
                      <td>{show(value)}</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </section>
        ))
      )}
    </>
  );
}
