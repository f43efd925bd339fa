"use client";
import type { Invocation } from "@cred/contracts/invocation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ChoiceField, SubmitButton } from "../../../../components/form-fields";
import { InvocationField } from "../../../../components/invocation-field";
import { QrCode } from "../../../../components/qr-code";
import { useCan } from "../../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader } from "../../../../components/status";
import { askBrowserWallet, hasDigitalCredentialsApi } from "../../../../lib/browser-wallet";
import { pollWhilePending } from "../../../../lib/polling";
import { useRefresh } from "../../../../lib/refresh";
import { useAllResourceItems } from "../../../../lib/resource-lists";
import { useTRPC } from "../../../../lib/trpc";
import { type PlaygroundDelivery, playgroundRequest } from "../../../../lib/verification-playground-request";

const DELIVERIES: { value: PlaygroundDelivery; label: string }[] = [
  { value: "link", label: "QR code or link (request_uri)" },
  { value: "link-by-value", label: "Same-device link, request by value (request=)" },
  { value: "dc-api-signed", label: "Digital Credentials API, signed request (openid4vp-v1-signed)" },
  { value: "dc-api-unsigned", label: "Digital Credentials API, unsigned request (openid4vp-v1-unsigned)" },
];

function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export default function VerificationPlaygroundPage() {
  const trpc = useTRPC();
  const refreshDashboard = useRefresh("dashboard");
  const policies = useAllResourceItems("verificationPolicies");
  const canStart = useCan("verification.execute");
  const active = (policies.data?.items ?? []).filter((p) => p.status === "active");
  const [policy, setPolicy] = useState("");
  const [invocation, setInvocation] = useState<Invocation>("openid");
  const [transactionData, setTransactionData] = useState("");
  const [transactionDataIssue, setTransactionDataIssue] = useState<string | null>(null);
  const [delivery, setDelivery] = useState<PlaygroundDelivery>("link");
  const [origins, setOrigins] = useState("");
  const dcApi = delivery === "dc-api-signed" || delivery === "dc-api-unsigned";
  const create = useMutation(trpc.verifications.create.mutationOptions({ onSuccess: refreshDashboard }));
  const created = create.data?.data;
  const session = useQuery({
    ...trpc.verifications.get.queryOptions({ verificationId: created?.id ?? "" }),
    enabled: !!created,
    refetchInterval: pollWhilePending,
  });
  const current = session.data?.data ?? created;
  const queryClient = useQueryClient();
  const cancel = useMutation(
    trpc.verifications.cancel.mutationOptions({
      onSuccess: (result) =>
        queryClient.setQueryData(trpc.verifications.get.queryKey({ verificationId: result.data.id }), result),
    }),
  );

  const submitDcApiResponse = useMutation(trpc.verifications.submitDcApiResponse.mutationOptions());
  // The playground as the integrator's page: this browser's wallet answers, the answer is handed back.
  const askWallet = useMutation({
    mutationFn: async () => {
      if (!created?.dcApiRequest) throw new Error("Start a Digital Credentials API verification first.");
      if (!hasDigitalCredentialsApi()) {
        throw new Error(
          "This browser has no Digital Credentials API (navigator.credentials.get with digital requests).",
        );
      }
      const answer = await askBrowserWallet(created.dcApiRequest);
      return submitDcApiResponse.mutateAsync({ id: created.id, ...answer });
    },
    onSuccess: (result) =>
      queryClient.setQueryData(trpc.verifications.get.queryKey({ verificationId: result.data.id }), result),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // The API's own schema, so the form refuses exactly what the API would (the policy's ids it checks itself).
    const built = playgroundRequest({ policy, invocation, transactionData, delivery, origins });
    if (built.issue !== undefined) {
      setTransactionDataIssue(built.issue);
      return;
    }
    setTransactionDataIssue(null);
    askWallet.reset();
    create.mutate(built.request);
  };

  return (
    <>
      <PageHeader title="Verification playground">
        Start a verification from a policy and present a credential with a wallet; only the claims the policy
        asks for are shown.
      </PageHeader>
      {policies.isPending && <Loading />}
      <ErrorAlert error={policies.error} />
      {policies.isSuccess && active.length === 0 && <Empty>No active verification policy yet.</Empty>}
      {!canStart && <Empty>Your role can read verifications but not start them.</Empty>}
      <div className="playground">
        {canStart && active.length > 0 && (
          <form onSubmit={submit} className="card" aria-labelledby="start-title">
            <h2 id="start-title">Start a verification</h2>
            <ChoiceField
              label="Policy"
              value={policy}
              onChange={(identifier) => {
                setPolicy(identifier);
                create.reset();
              }}
              choices={active.map((p) => ({
                value: p.identifier,
                label: `${p.displayName} (${p.identifier})`,
              }))}
            />
            <ChoiceField
              label="Delivery"
              value={delivery}
              onChange={(value) => setDelivery(value as PlaygroundDelivery)}
              choices={DELIVERIES}
            />
            {dcApi ? (
              <label>
                Expected origins: the pages that call navigator.credentials.get, one per line (response mode
                dc_api.jwt, or dc_api for a policy answered by direct_post)
                <textarea
                  rows={2}
                  value={origins}
                  placeholder="https://shop.example.com"
                  onChange={(e) => setOrigins(e.target.value)}
                />
              </label>
            ) : (
              <InvocationField protocol="presentation" value={invocation} onChange={setInvocation} />
            )}
            <label>
              Transaction data (optional): a JSON array of{" "}
              <code>{'{ "type", "credentialIds", "fields" }'}</code> items the holder authorises with the
              presentation (OpenID4VP transaction_data)
              <textarea
                rows={3}
                value={transactionData}
                placeholder={
                  '[{ "type": "https://pay.example/payment", "credentialIds": ["pid"], "fields": { "amount": "42.00" } }]'
                }
                aria-invalid={transactionDataIssue !== null}
                onChange={(e) => setTransactionData(e.target.value)}
              />
            </label>
            {transactionDataIssue && (
              <div className="alert alert-error" role="alert">
                {transactionDataIssue}
              </div>
            )}
            <ErrorAlert error={create.error} title="Could not start the verification" />
            <SubmitButton pending={create.isPending} disabled={!policy} pendingLabel="Starting…">
              Start verification
            </SubmitButton>
          </form>
        )}
        {created && current && (
          <section className="card" aria-labelledby="session-title">
            <h2 id="session-title">Session</h2>
            <p aria-live="polite">
              Status <Badge value={current.status} testId="verification-status" />
            </p>
            {current.status === "pending" && !created.dcApiRequest && (
              <QrCode value={created.authorizationRequestUri} label="QR code of the presentation request" />
            )}
            {current.status === "pending" && created.dcApiRequest && (
              <details open>
                <summary>Digital Credentials API request (pass it to navigator.credentials.get)</summary>
                <pre data-testid="dc-api-request">{JSON.stringify(created.dcApiRequest, null, 2)}</pre>
              </details>
            )}
            {canStart && current.status === "pending" && created.dcApiRequest && (
              <p>
                <button type="button" disabled={askWallet.isPending} onClick={() => askWallet.mutate()}>
                  {askWallet.isPending ? "Waiting for the wallet…" : "Ask this browser's wallet"}
                </button>{" "}
                <span className="hint">
                  Calls navigator.credentials.get on this page and hands the answer back
                  (VerificationSessions_SubmitDcApiResponse); this console&apos;s origin must be one of the
                  expected origins.
                </span>
              </p>
            )}
            <ErrorAlert error={askWallet.error} title="The browser's wallet did not answer" />
            <dl className="facts">
              <dt>Session id</dt>
              <dd>
                <code>{created.id}</code>
              </dd>
              <dt>Expires</dt>
              <dd>{new Date(created.expiresAt).toLocaleString()}</dd>
              {created.transactionData && (
                <>
                  <dt>Transaction data</dt>
                  <dd data-testid="transaction-data">
                    {created.transactionData.map((t) => (
                      <code key={`${t.type}:${JSON.stringify(t.fields ?? {})}`}>{show(t)}</code>
                    ))}
                  </dd>
                </>
              )}
            </dl>
            {current.result && (
              <section aria-labelledby="result-title">
                <h3 id="result-title">Result: {current.result.outcome}</h3>
                {current.result.reasons?.length ? (
                  <>
                    {current.result.outcome === "verified" && (
                      <p className="hint">Presentations discarded (the rest satisfied the policy):</p>
                    )}
                    <ul>
                      {current.result.reasons.map((r) => (
                        <li key={`${r.code}:${r.credentialQueryId ?? ""}`}>
                          <code>{r.code}</code>: {r.message}
                        </li>
                      ))}
                    </ul>
                  </>
                ) : null}
                {current.result.credentials.map((c) => (
                  <table key={c.credentialQueryId} data-testid="verified-claims">
                    <caption>
                      Disclosed claims of <code>{c.credentialType}</code>
                    </caption>
                    <thead>
                      <tr>
                        <th scope="col">Claim</th>
                        <th scope="col">Value</th>
                      </tr>
                    </thead>
                    <tbody>
                      {Object.entries(c.claims).map(([name, value]) => (
                        <tr key={name}>
                          <th scope="row">{name}</th>
                          <td>{show(value)}</td>
                        </tr>
                      ))}
                    </tbody>
                    <tfoot>
                      <tr>
                        <td colSpan={2} className="hint">
                          Checks:{" "}
                          {Object.entries(c.checks)
                            .map(([check, outcome]) => `${check} ${outcome}`)
                            .join(", ")}
                        </td>
                      </tr>
                    </tfoot>
                  </table>
                ))}
              </section>
            )}
            {canStart && current.status === "pending" && (
              <p>
                <button
                  type="button"
                  className="secondary"
                  disabled={cancel.isPending}
                  onClick={() => cancel.mutate({ id: current.id })}
                >
                  Cancel verification
                </button>
              </p>
            )}
            <ErrorAlert error={cancel.error} title="Could not cancel the verification" />
            <ErrorAlert error={session.error} title="Could not refresh the status" />
          </section>
        )}
      </div>
    </>
  );
}
