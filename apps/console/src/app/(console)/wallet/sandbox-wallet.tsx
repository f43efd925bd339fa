"use client";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import {
  configurationName,
  finishAuthorizationCode,
  type IssuerContext,
  issuerName,
  loadIssuer,
  redeemPreAuthorizedCode,
  startAuthorizationCode,
} from "../../../lib/wallet/issuance";
import { PRE_AUTHORIZED_GRANT, resolveOffer } from "../../../lib/wallet/offer";
import {
  deleteCredential,
  deleteKey,
  listCredentials,
  type StoredCredential,
} from "../../../lib/wallet/store";
import { CredentialCard } from "./credential-card";
import { PresentationPanel } from "./presentation-panel";
import { WalletAlert } from "./wallet-error";

/** The wallet's own URL: where the issuer sends the browser back in the authorization code flow. */
const redirectUri = () => `${window.location.origin}/wallet`;

export function SandboxWallet() {
  const [credentials, setCredentials] = useState<StoredCredential[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [storageError, setStorageError] = useState<unknown>(null);
  const reload = useCallback(async () => {
    try {
      const all = await listCredentials();
      setCredentials(all.sort((a, b) => b.receivedAt.localeCompare(a.receivedAt)));
      setLoaded(true);
    } catch (error) {
      setStorageError(error);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);

  return (
    <div className="wallet">
      <WalletAlert error={storageError} title="The wallet's storage is not available" />
      <ReceivePanel onReceived={reload} />
      <PresentationPanel credentials={credentials} />
      <section aria-labelledby="credentials-title">
        <h2 id="credentials-title">Your credentials</h2>
        {loaded && credentials.length === 0 && <Empty />}
        <div className="wallet-cards">
          {credentials.map((credential) => (
            <CredentialCard
              key={credential.id}
              credential={credential}
              onRemove={async () => {
                await deleteCredential(credential.id);
                await deleteKey(credential.keyId);
                await reload();
              }}
            />
          ))}
        </div>
      </section>
    </div>
  );
}

function Empty() {
  return <p className="empty">No credentials yet. Accept an offer above.</p>;
}

/** Offers: pasted, handed over by the issuance playground (`/wallet#offer=…`), or back from /authorize. */
function ReceivePanel({ onReceived }: { onReceived: () => Promise<void> }) {
  const [link, setLink] = useState("");
  const [txCode, setTxCode] = useState("");
  const [context, setContext] = useState<IssuerContext | null>(null);
  const [received, setReceived] = useState<StoredCredential[] | null>(null);

  const read = useMutation({
    mutationFn: async (offerLink: string) => loadIssuer(await resolveOffer(offerLink)),
    onSuccess: (loadedContext) => {
      setContext(loadedContext);
      setReceived(null);
      setTxCode("");
    },
  });
  const accept = useMutation({
    mutationFn: async () => {
      if (!context) throw new Error("Read an offer first.");
      if (context.offer.grants?.[PRE_AUTHORIZED_GRANT])
        return redeemPreAuthorizedCode(context, txCode.trim() || undefined);
      window.location.assign(await startAuthorizationCode(context, redirectUri()));
      return [];
    },
    onSuccess: async (stored) => {
      if (stored.length === 0) return;
      setReceived(stored);
      setContext(null);
      setLink("");
      await onReceived();
    },
  });
  const finish = useMutation({
    mutationFn: (params: URLSearchParams) =>
      finishAuthorizationCode(params, async (credentialIssuer, configurationId) =>
        loadIssuer({ credential_issuer: credentialIssuer, credential_configuration_ids: [configurationId] }),
      ),
    onSuccess: async (stored) => {
      setReceived(stored);
      await onReceived();
    },
  });

  // Handed over from the issuance playground (a fragment, so the offer never reaches a server log), or
  // the issuer's answer of the authorization code flow (?code=…&state=…&iss=…).
  const { mutate: readOffer } = read;
  const { mutate: finishFlow } = finish;
  useEffect(() => {
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    const handed = fragment.get("offer");
    const query = new URLSearchParams(window.location.search);
    if (handed) {
      setLink(handed);
      readOffer(handed);
      window.history.replaceState(null, "", "/wallet");
    } else if (query.has("state") && (query.has("code") || query.has("error"))) {
      finishFlow(query);
      window.history.replaceState(null, "", "/wallet");
    }
  }, [readOffer, finishFlow]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    read.mutate(link);
  };
  const preAuthorized = context?.offer.grants?.[PRE_AUTHORIZED_GRANT];
  const configurationId = context?.offer.credential_configuration_ids[0] ?? "";

  return (
    <section className="card" aria-labelledby="receive-title">
      <h2 id="receive-title">Receive a credential</h2>
      <form onSubmit={submit}>
        <label>
          Credential offer link
          <input
            value={link}
            onChange={(e) => setLink(e.target.value)}
            placeholder="openid-credential-offer://?credential_offer_uri=…"
            required
          />
        </label>
        <button type="submit" disabled={read.isPending}>
          {read.isPending ? "Reading…" : "Read offer"}
        </button>
      </form>
      <WalletAlert error={read.error} title="Could not read the offer" />
      {context && (
        <form
          aria-label="Offer"
          onSubmit={(e) => {
            e.preventDefault();
            accept.mutate();
          }}
        >
          <dl className="facts">
            <dt>Issuer</dt>
            <dd data-testid="offer-issuer">{issuerName(context) ?? context.offer.credential_issuer}</dd>
            <dt>Credential</dt>
            <dd>{configurationName(context, configurationId) ?? configurationId}</dd>
            <dt>Grant</dt>
            <dd>
              {preAuthorized ? "Pre-authorized code" : "Authorization code (you continue at the issuer)"}
            </dd>
          </dl>
          {preAuthorized?.tx_code && (
            <label>
              Transaction code
              {preAuthorized.tx_code.description ? ` (${preAuthorized.tx_code.description})` : ""}
              <input
                value={txCode}
                onChange={(e) => setTxCode(e.target.value)}
                inputMode={preAuthorized.tx_code.input_mode === "numeric" ? "numeric" : "text"}
                maxLength={preAuthorized.tx_code.length}
                autoComplete="one-time-code"
                required
              />
            </label>
          )}
          <p>
            <button type="submit" disabled={accept.isPending}>
              {accept.isPending
                ? "Accepting…"
                : preAuthorized
                  ? "Accept credential"
                  : "Continue at the issuer"}
            </button>{" "}
            <button type="button" className="secondary" onClick={() => setContext(null)}>
              Decline
            </button>
          </p>
        </form>
      )}
      <WalletAlert error={accept.error ?? finish.error} title="Could not receive the credential" />
      {finish.isPending && <p role="status">Finishing the authorization…</p>}
      {received && (
        <div className="alert alert-success" role="status">
          Credential received: {received.map((c) => c.displayName ?? c.configurationId).join(", ")}.
        </div>
      )}
    </section>
  );
}
