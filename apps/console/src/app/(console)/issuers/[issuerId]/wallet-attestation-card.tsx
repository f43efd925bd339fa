"use client";
import type { TIssuer } from "@cred/core/issuers/issuer.schema";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SubmitButton } from "../../../../components/form-fields";
import { useCan } from "../../../../components/session";
import { ErrorAlert, Success } from "../../../../components/status";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC } from "../../../../lib/trpc";

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Which wallet providers' attestations the issuer accepts as client authentication at its PAR and token
 * endpoints (OpenID4VCI Appendix E, HAIP), and whether it requires one (Issuers_Update,
 * `walletAttestation`). The server checks each root and says which one it refuses.
 */
export function WalletAttestationCard({ issuer }: { issuer: TIssuer }) {
  const trpc = useTRPC();
  const canManage = useCan("issuers.manage");
  const refresh = useRefresh("issuers");
  const current = issuer.walletAttestation;
  const [roots, setRoots] = useState(current?.trustedRoots.join("\n") ?? "");
  const [required, setRequired] = useState(current?.required ?? false);
  const update = useMutation(trpc.issuers.update.mutationOptions({ onSuccess: refresh }));

  const save = (event: FormEvent) => {
    event.preventDefault();
    // Several certificates pasted together are several roots; anything else goes as given, for the
    // server to refuse with its reason.
    const trustedRoots = roots.match(PEM_BLOCK) ?? [roots];
    update.mutate({ issuerId: issuer.id, walletAttestation: { trustedRoots, required } });
  };

  return (
    <section className="card" aria-labelledby="wallet-attestation-title">
      <h2 id="wallet-attestation-title">Wallet attestation</h2>
      <p className="hint">
        HAIP wallets authenticate with an attestation from their wallet provider. Trust a provider by its CA
        certificate; requiring an attestation turns away every other wallet at the authorization and token
        endpoints.
      </p>
      <p data-testid="wallet-attestation">
        {current
          ? `Accepting attestations under ${current.trustedRoots.length} root${current.trustedRoots.length === 1 ? "" : "s"}; ${current.required ? "required" : "optional"}.`
          : "Not accepting attestations: every wallet is an anonymous public client."}
      </p>
      {canManage && (
        <form onSubmit={save} aria-label="Wallet attestation settings">
          <label>
            Wallet provider CA certificates (PEM, one or more)
            <textarea required rows={8} value={roots} onChange={(e) => setRoots(e.target.value)} />
          </label>
          <label className="inline">
            <input type="checkbox" checked={required} onChange={(e) => setRequired(e.target.checked)} />
            Require a wallet attestation
          </label>
          <ErrorAlert error={update.error} title="Could not save the wallet attestation settings" />
          {update.isSuccess && <Success>Wallet attestation settings saved.</Success>}
          <div className="actions">
            <SubmitButton pending={update.isPending}>Save</SubmitButton>
            {current && (
              <button
                type="button"
                className="secondary danger"
                disabled={update.isPending}
                onClick={() => {
                  setRoots("");
                  setRequired(false);
                  update.mutate({ issuerId: issuer.id, walletAttestation: null });
                }}
              >
                Stop accepting attestations
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
