"use client";
import type { TClaimDefinition } from "@cred/contracts/credential-configurations";
import type { Invocation } from "@cred/contracts/invocation";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { ChoiceField, SubmitButton } from "../../../../components/form-fields";
import { InvocationField } from "../../../../components/invocation-field";
import { QrCode } from "../../../../components/qr-code";
import { useCan, useSession } from "../../../../components/session";
import { Badge, Empty, ErrorAlert, Loading, PageHeader } from "../../../../components/status";
import { TransactionActions } from "../../../../components/transaction-actions";
import { pollWhilePending } from "../../../../lib/polling";
import { useRefresh } from "../../../../lib/refresh";
import { useAllResourceItems } from "../../../../lib/resource-lists";
import { useTRPC } from "../../../../lib/trpc";

function coerce(claim: TClaimDefinition, raw: string): unknown {
  switch (claim.type) {
    case "number":
    case "integer":
      return raw === "" ? undefined : Number(raw);
    case "boolean":
      // Untouched: left out, so an optional boolean claim is not issued as false.
      return raw === "" ? undefined : raw === "true";
    case "object":
    case "array":
      return raw === "" ? undefined : JSON.parse(raw);
    default:
      return raw === "" ? undefined : raw;
  }
}

/** Claim values keyed by dotted path → the nested claims object the API expects. */
function buildClaims(claims: TClaimDefinition[], values: Record<string, string>) {
  const out: Record<string, unknown> = {};
  for (const claim of claims) {
    const value = coerce(claim, values[claim.path.join(".")] ?? "");
    if (value === undefined) continue;
    let node = out;
    claim.path.slice(0, -1).forEach((segment) => {
      node[segment] ??= {};
      node = node[segment] as Record<string, unknown>;
    });
    node[claim.path[claim.path.length - 1]!] = value;
  }
  return out;
}

export default function IssuancePlaygroundPage() {
  const trpc = useTRPC();
  const refreshDashboard = useRefresh("dashboard");
  const configurations = useAllResourceItems("credentialConfigurations");
  const canIssue = useCan("credentials.issue");
  const inSandbox = useSession().environment === "sandbox";
  const issuers = useAllResourceItems("issuers", { status: "active" });
  const [configurationId, setConfigurationId] = useState("");
  const [values, setValues] = useState<Record<string, string>>({});
  const [withTxCode, setWithTxCode] = useState(true);
  const [grant, setGrant] = useState<"preAuthorizedCode" | "authorizationCode">("preAuthorizedCode");
  const codeFlow = grant === "authorizationCode";
  const [invocation, setInvocation] = useState<Invocation>("openid");
  const [claimError, setClaimError] = useState<string | null>(null);
  const activeIssuers = new Set((issuers.data?.items ?? []).map((i) => i.id));
  const usable = (configurations.data?.items ?? []).filter((c) => activeIssuers.has(c.issuerId));
  const configuration = usable.find((c) => c.id === configurationId);

  const create = useMutation(
    trpc.issuanceTransactions.create.mutationOptions({ onSuccess: refreshDashboard }),
  );
  const created = create.data?.data;
  const status = useQuery({
    ...trpc.issuanceTransactions.get.queryOptions({ transactionId: created?.id ?? "" }),
    enabled: !!created,
    refetchInterval: pollWhilePending,
  });
  const current = status.data?.data ?? created;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!configuration) return;
    let claims: Record<string, unknown>;
    try {
      claims = buildClaims(configuration.claims, values);
      setClaimError(null);
    } catch {
      setClaimError("Object and array claims take JSON.");
      return;
    }
    create.mutate({
      credentialConfiguration: configuration.identifier,
      issuerId: configuration.issuerId,
      claims,
      delivery: {
        offerBy: "reference",
        grant,
        invocation,
        ...(withTxCode && !codeFlow ? { txCode: { inputMode: "numeric", length: 6 } } : {}),
      },
    });
  };

  return (
    <>
      <PageHeader title="Issuance playground">
        Create an issuance transaction and scan its offer with a wallet; the status updates when the wallet
        redeems it.
      </PageHeader>
      {(configurations.isPending || issuers.isPending) && <Loading />}
      <ErrorAlert error={configurations.error ?? issuers.error} />
      {configurations.isSuccess && issuers.isSuccess && usable.length === 0 && (
        <Empty>
          No credential configuration belongs to an active issuer yet. Create one and activate its issuer.
        </Empty>
      )}
      {!canIssue && <Empty>Your role can read issuance transactions but not create offers.</Empty>}
      <div className="playground">
        {canIssue && usable.length > 0 && (
          <form onSubmit={submit} className="card" aria-labelledby="offer-title">
            <h2 id="offer-title">New offer</h2>
            <ChoiceField
              label="Credential configuration"
              value={configurationId}
              onChange={(id) => {
                setConfigurationId(id);
                setValues({});
                create.reset();
              }}
              choices={usable.map((c) => ({ value: c.id, label: `${c.displayName} (${c.identifier})` }))}
            />
            {configuration && (
              <fieldset>
                <legend>Claims</legend>
                {configuration.claims.length === 0 && <Empty>No claims declared.</Empty>}
                {configuration.claims.map((claim) => {
                  const key = claim.path.join(".");
                  const label = `${claim.display?.[0]?.name ?? key}${claim.required ? " (required)" : ""}`;
                  return claim.type === "boolean" ? (
                    <label key={key} className="inline">
                      <input
                        type="checkbox"
                        checked={values[key] === "true"}
                        onChange={(e) => setValues({ ...values, [key]: String(e.target.checked) })}
                      />
                      {label}
                    </label>
                  ) : (
                    <label key={key}>
                      {label}
                      <input
                        type={
                          claim.type === "date"
                            ? "date"
                            : claim.type === "number" || claim.type === "integer"
                              ? "number"
                              : "text"
                        }
                        required={claim.required}
                        value={values[key] ?? ""}
                        onChange={(e) => setValues({ ...values, [key]: e.target.value })}
                      />
                    </label>
                  );
                })}
              </fieldset>
            )}
            <ChoiceField
              label="Grant"
              value={grant}
              onChange={(value) => setGrant(value as typeof grant)}
              choices={[
                { value: "preAuthorizedCode", label: "Pre-authorized code" },
                { value: "authorizationCode", label: "Authorization code (PAR, PKCE; HAIP wallets)" },
              ]}
            />
            <InvocationField protocol="offer" value={invocation} onChange={setInvocation} />
            {!codeFlow && (
              <label className="inline">
                <input
                  type="checkbox"
                  checked={withTxCode}
                  onChange={(e) => setWithTxCode(e.target.checked)}
                />
                Protect the offer with a transaction code (tx_code)
              </label>
            )}
            {claimError && (
              <p className="alert alert-error" role="alert">
                {claimError}
              </p>
            )}
            <ErrorAlert error={create.error} title="Could not create the offer" />
            <p>
              <SubmitButton pending={create.isPending} disabled={!configuration}>
                Create offer
              </SubmitButton>
            </p>
          </form>
        )}
        {created && current && (
          <section className="card" aria-labelledby="tx-title">
            <h2 id="tx-title">Transaction</h2>
            <p aria-live="polite">
              Status <Badge value={current.status} testId="issuance-status" />
            </p>
            {created.credentialOffer && current.status === "pending" && (
              <QrCode value={created.credentialOffer} label="QR code of the credential offer" />
            )}
            {/* The offer travels in the fragment: the console's server never sees (or logs) it. */}
            {inSandbox && created.credentialOffer && current.status === "pending" && (
              <p>
                {/* A new tab, so this page keeps following the transaction while the wallet redeems it. */}
                <a
                  className="button"
                  href={`/wallet#offer=${encodeURIComponent(created.credentialOffer)}`}
                  target="_blank"
                  rel="noopener"
                >
                  Open in sandbox wallet
                </a>
              </p>
            )}
            {created.txCode && (
              <p>
                Transaction code:{" "}
                <span className="tx-code" data-testid="tx-code">
                  {created.txCode}
                </span>
              </p>
            )}
            <dl className="facts">
              <dt>Transaction id</dt>
              <dd>
                <code data-testid="transaction-id">{created.id}</code>
              </dd>
              {/* The offer's expiry means nothing once it was redeemed, cancelled or ran out. */}
              {current.status === "pending" && (
                <>
                  <dt>Offer expires</dt>
                  <dd>{new Date(current.expiresAt).toLocaleString()}</dd>
                </>
              )}
              {current.credentialId && (
                <>
                  <dt>Credential</dt>
                  <dd>
                    <Link href={`/credentials/${current.credentialId}`}>
                      <code>{current.credentialId}</code>
                    </Link>
                  </dd>
                </>
              )}
            </dl>
            <p>
              <Link href={`/transactions/${created.id}`}>Open the transaction</Link>
            </p>
            <TransactionActions transaction={current} />
            <ErrorAlert error={status.error} title="Could not refresh the status" />
          </section>
        )}
      </div>
    </>
  );
}
