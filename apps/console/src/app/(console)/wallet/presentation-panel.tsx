"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { type Candidate, matchDcql, pathLabel, type QueryMatch } from "../../../lib/wallet/dcql";
import { WalletError } from "../../../lib/wallet/http";
import {
  type Disclosure,
  declinePresentation,
  loadPresentationRequest,
  type PresentationOutcome,
  submitPresentation,
  type VerifiedRequest,
} from "../../../lib/wallet/presentation";
import { decodeCredential, valueAt } from "../../../lib/wallet/sd-jwt";
import type { StoredCredential } from "../../../lib/wallet/store";
import { WalletAlert } from "./wallet-error";

function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

const DELIVERY_LABELS: Record<VerifiedRequest["delivery"], string> = {
  request_uri: "request object fetched from request_uri (GET)",
  request_uri_post: "request object fetched from request_uri (POST, with a wallet nonce)",
  request: "request object by value in the link (request=)",
  parameters: "plain parameters in the link (unsigned)",
};

/** Who asks, as far as the wallet could check it for the request's client identifier prefix. */
function VerifierFacts({ request }: { request: VerifiedRequest }) {
  const { verifier } = request;
  return (
    <>
      <dt>Verifier</dt>
      <dd data-testid="verifier-subject">
        {verifier.kind === "certificate"
          ? verifier.subject
          : verifier.kind === "did"
            ? verifier.documentUrl
              ? `A decentralized identifier (did:web at ${new URL(verifier.documentUrl).host})`
              : "A decentralized identifier (did:jwk)"
            : new URL(verifier.responseUri).host}
      </dd>
      <dt>Client id</dt>
      <dd>
        <code data-testid="verifier-client-id">{request.clientId}</code>
      </dd>
      <dt>Request</dt>
      <dd data-testid="request-delivery">{DELIVERY_LABELS[request.delivery]}</dd>
      {verifier.kind === "certificate" && (
        <>
          <dt>Certificate</dt>
          <dd>
            Signature, chain and client id checked; valid until {verifier.notAfter.toLocaleDateString()}. Not
            checked against a trust list (the sandbox wallet has none).
          </dd>
        </>
      )}
      {verifier.kind === "did" && (
        <>
          <dt>Signature</dt>
          <dd data-testid="verifier-check">
            {verifier.documentUrl ? (
              <>
                Signed by a key of the client&apos;s did:web document, read from{" "}
                <code>{verifier.documentUrl}</code> (checked). A did:web says who controls that web address,
                not who the organisation is.
              </>
            ) : (
              <>
                Signed by the key of the client&apos;s did:jwk (checked). A did:jwk is only a key: it does not
                say who holds it.
              </>
            )}
          </dd>
        </>
      )}
      {verifier.kind === "redirect_uri" && (
        <>
          <dt>Signature</dt>
          <dd data-testid="verifier-check">
            <strong>Unsigned request</strong> (redirect_uri client identifier): nothing about the verifier is
            verified. Your answer goes to <code>{verifier.responseUri}</code>.
          </dd>
        </>
      )}
    </>
  );
}

/** Per credential query: the credential chosen and the claim paths (by label) the holder agrees to show. */
type Choices = Record<string, { credentialId: string; paths: Set<string> }>;

function initialChoices(matches: QueryMatch[]): Choices {
  const choices: Choices = {};
  for (const match of matches) {
    const first = match.candidates[0];
    if (first)
      choices[match.query.id] = {
        credentialId: first.credentialId,
        paths: new Set(first.paths.map(pathLabel)),
      };
  }
  return choices;
}

/** Presentation requests: read and checked, matched against the stored credentials, answered. */
export function PresentationPanel({ credentials }: { credentials: StoredCredential[] }) {
  const [link, setLink] = useState("");
  const [request, setRequest] = useState<VerifiedRequest | null>(null);
  const [choices, setChoices] = useState<Choices>({});
  const [outcome, setOutcome] = useState<(PresentationOutcome & { declined?: boolean }) | null>(null);

  const decoded = useQuery({
    queryKey: ["wallet", "candidates", credentials.map((c) => c.id).join(",")],
    queryFn: async (): Promise<Candidate[]> =>
      Promise.all(
        credentials.map(async (c) => ({ id: c.id, claims: (await decodeCredential(c.compact)).claims })),
      ),
  });
  const candidates = decoded.data ?? [];
  const matched = request ? matchDcql(request.dcql, candidates) : null;

  const read = useMutation({
    mutationFn: loadPresentationRequest,
    onSuccess: (verified) => {
      setRequest(verified);
      setOutcome(null);
      setChoices(initialChoices(matchDcql(verified.dcql, candidates).matches));
    },
  });
  const share = useMutation({
    mutationFn: async () => {
      if (!request || !matched) throw new WalletError("Read a request first.");
      const disclosures: Disclosure[] = matched.matches.map((match) => {
        const choice = choices[match.query.id];
        const credential = credentials.find((c) => c.id === choice?.credentialId);
        const candidate = match.candidates.find((c) => c.credentialId === choice?.credentialId);
        const claims = candidates.find((c) => c.id === choice?.credentialId)?.claims;
        if (!choice || !credential || !candidate || !claims) {
          throw new WalletError(`No credential chosen for ${match.query.id}.`);
        }
        return {
          queryId: match.query.id,
          credential,
          claims,
          paths: candidate.paths.filter((path) => choice.paths.has(pathLabel(path))),
        };
      });
      return submitPresentation(request, disclosures);
    },
    onSuccess: (result) => {
      setOutcome(result);
      if (result.status === 200) setRequest(null);
    },
  });
  const decline = useMutation({
    mutationFn: async () => {
      if (!request) throw new WalletError("Read a request first.");
      return declinePresentation(request);
    },
    onSuccess: (result) => {
      setOutcome({ ...result, declined: true });
      setRequest(null);
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    read.mutate(link);
  };
  const answerable = matched !== null && matched.missing.length === 0 && matched.matches.length > 0;

  return (
    <section className="card" aria-labelledby="present-title">
      <h2 id="present-title">Present credentials</h2>
      <form onSubmit={submit}>
        <label>
          Presentation request link
          <input
            value={link}
            onChange={(e) => setLink(e.target.value)}
            placeholder="openid4vp://?client_id=…&request_uri=…"
            required
          />
        </label>
        <button type="submit" disabled={read.isPending}>
          {read.isPending ? "Reading…" : "Read request"}
        </button>
      </form>
      <WalletAlert error={read.error} title="Could not read the request" />
      {request && matched && (
        <form
          aria-label="Presentation request"
          onSubmit={(e) => {
            e.preventDefault();
            share.mutate();
          }}
        >
          <dl className="facts">
            <VerifierFacts request={request} />
            <dt>Response</dt>
            <dd>
              <code>{request.responseMode}</code>
              {request.responseMode === "direct_post.jwt" ? " (encrypted to the verifier)" : ""}
            </dd>
            {request.transactionData.length > 0 && (
              <>
                <dt>You authorise</dt>
                <dd>
                  {request.transactionData.map((t) => (
                    <code key={t.encoded}>{show(t.item)}</code>
                  ))}
                </dd>
              </>
            )}
          </dl>
          {matched.missing.length > 0 && (
            <p className="alert alert-error" role="alert">
              The wallet holds no credential that answers: {matched.missing.join("; ")}.
            </p>
          )}
          {matched.matches.map((match) => {
            const choice = choices[match.query.id];
            const claims = candidates.find((c) => c.id === choice?.credentialId)?.claims ?? {};
            const paths = match.candidates.find((c) => c.credentialId === choice?.credentialId)?.paths ?? [];
            return (
              <fieldset key={match.query.id} data-testid="wallet-query">
                <legend>
                  Asked for: <code>{match.query.id}</code>
                  {match.query.meta?.vct_values ? ` (${match.query.meta.vct_values.join(", ")})` : ""}
                </legend>
                {match.candidates.length > 1 && (
                  <label>
                    Credential
                    <select
                      value={choice?.credentialId ?? ""}
                      onChange={(e) => {
                        const picked = match.candidates.find((c) => c.credentialId === e.target.value);
                        if (picked)
                          setChoices({
                            ...choices,
                            [match.query.id]: {
                              credentialId: picked.credentialId,
                              paths: new Set(picked.paths.map(pathLabel)),
                            },
                          });
                      }}
                    >
                      {match.candidates.map((c) => (
                        <option key={c.credentialId} value={c.credentialId}>
                          {credentials.find((s) => s.id === c.credentialId)?.displayName ?? c.credentialId} (
                          {new Date(
                            credentials.find((s) => s.id === c.credentialId)?.receivedAt ?? 0,
                          ).toLocaleString()}
                          )
                        </option>
                      ))}
                    </select>
                  </label>
                )}
                {paths.length === 0 && (
                  <p className="hint">Only the credential itself is asked for (no claims).</p>
                )}
                {paths.map((path) => {
                  const label = pathLabel(path);
                  return (
                    <label key={label} className="inline">
                      <input
                        type="checkbox"
                        checked={choice?.paths.has(label) ?? false}
                        onChange={(e) => {
                          if (!choice) return;
                          const next = new Set(choice.paths);
                          if (e.target.checked) next.add(label);
                          else next.delete(label);
                          setChoices({ ...choices, [match.query.id]: { ...choice, paths: next } });
                        }}
                      />
                      Share {label}: {valueAt(claims, path).map(show).join(", ")}
                    </label>
                  );
                })}
              </fieldset>
            );
          })}
          <p className="hint">Only the claims asked for can be shared; everything else stays undisclosed.</p>
          <p>
            <button type="submit" disabled={!answerable || share.isPending}>
              {share.isPending ? "Sharing…" : "Share"}
            </button>{" "}
            <button
              type="button"
              className="secondary"
              disabled={decline.isPending}
              onClick={() => decline.mutate()}
            >
              Decline
            </button>
          </p>
        </form>
      )}
      <WalletAlert error={share.error ?? decline.error} title="Could not answer the request" />
      {outcome && (
        <div
          className={`alert ${outcome.status === 200 ? "alert-success" : "alert-error"}`}
          role="status"
          data-testid="presentation-outcome"
        >
          {outcome.declined
            ? "You declined; the verifier was told."
            : outcome.status === 200
              ? "Shared with the verifier."
              : `The verifier refused the response (HTTP ${outcome.status}): ${show(outcome.body)}`}
          {outcome.redirectUri && (
            <>
              {" "}
              <a href={outcome.redirectUri}>Continue at the verifier</a>
            </>
          )}
        </div>
      )}
    </section>
  );
}
