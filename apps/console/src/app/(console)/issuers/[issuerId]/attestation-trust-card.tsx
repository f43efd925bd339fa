"use client";
import type { TIssuer } from "@cred/contracts/issuers";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { SubmitButton, TextField } from "../../../../components/form-fields";
import { useCan } from "../../../../components/session";
import { ErrorAlert, Success } from "../../../../components/status";
import { type TrustSourceChoice, TrustSourceFields } from "../../../../components/trust-source-fields";
import { useRefresh } from "../../../../lib/refresh";
import { useTRPC } from "../../../../lib/trpc";

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const levels = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter(Boolean);

type Setting = "walletAttestation" | "keyAttestation";

/** TS 119 602 wallet provider issuance service: the API's default for attester trust sources. */
const WALLET_PROVIDER_SERVICE_TYPE = "http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance";

/**
 * The trust anchors of one kind of attestation an issuer accepts (Issuers_Update): wallet attestations
 * (client authentication at PAR and token) or key attestations (holder keys at the credential
 * endpoint), whether one is required, and for key attestations the accepted levels. The server checks
 * each root and says which one it refuses. Attesters may also be trusted from a trust source (an ETSI
 * list) under a service type, next to or instead of pasted roots; the form edits the first such source and
 * keeps any further ones the API was given.
 */
export function AttestationTrustCard({
  issuer,
  setting,
  title,
  hint,
  rootsLabel,
  requiredLabel,
}: {
  issuer: TIssuer;
  setting: Setting;
  title: string;
  hint: ReactNode;
  rootsLabel: string;
  requiredLabel: string;
}) {
  const trpc = useTRPC();
  const canManage = useCan("issuers.manage");
  const refresh = useRefresh("issuers");
  const current = issuer[setting];
  const keyLevels = setting === "keyAttestation" ? issuer.keyAttestation : null;
  const [requireChallenge, setRequireChallenge] = useState(
    issuer.walletAttestation?.requireChallenge ?? false,
  );
  const [roots, setRoots] = useState(current?.trustedRoots.join("\n") ?? "");
  const [firstSource, ...moreSources] = current?.trustSources ?? [];
  const [useSource, setUseSource] = useState(Boolean(firstSource));
  const [fromSource, setFromSource] = useState<TrustSourceChoice>(
    firstSource ?? { trustSourceId: "", serviceType: WALLET_PROVIDER_SERVICE_TYPE },
  );
  const [required, setRequired] = useState(current?.required ?? false);
  const [keyStorage, setKeyStorage] = useState(keyLevels?.keyStorage?.join(", ") ?? "");
  const [userAuthentication, setUserAuthentication] = useState(
    keyLevels?.userAuthentication?.join(", ") ?? "",
  );
  const update = useMutation(trpc.issuers.update.mutationOptions({ onSuccess: refresh }));
  const testId = setting === "walletAttestation" ? "wallet-attestation" : "key-attestation";

  const save = (event: FormEvent) => {
    event.preventDefault();
    // Several certificates pasted together are several roots; anything else goes as given, for the
    // server to refuse with its reason.
    const trustedRoots = roots.match(PEM_BLOCK) ?? (roots.trim() ? [roots] : []);
    const sources = useSource
      ? { trustSources: [{ ...fromSource, serviceType: fromSource.serviceType.trim() }, ...moreSources] }
      : moreSources.length
        ? { trustSources: moreSources }
        : {};
    if (setting === "walletAttestation") {
      update.mutate({
        issuerId: issuer.id,
        walletAttestation: { trustedRoots, ...sources, required, requireChallenge },
      });
      return;
    }
    update.mutate({
      issuerId: issuer.id,
      keyAttestation: {
        trustedRoots,
        ...sources,
        required,
        ...(levels(keyStorage).length ? { keyStorage: levels(keyStorage) } : {}),
        ...(levels(userAuthentication).length ? { userAuthentication: levels(userAuthentication) } : {}),
      },
    });
  };
  const stop = () => {
    setRoots("");
    setUseSource(false);
    setRequired(false);
    setRequireChallenge(false);
    update.mutate({ issuerId: issuer.id, [setting]: null });
  };

  return (
    <section className="card" aria-labelledby={`${testId}-title`}>
      <h2 id={`${testId}-title`}>{title}</h2>
      <p className="hint">{hint}</p>
      <p data-testid={testId}>
        {current
          ? `Accepting attestations under ${current.trustedRoots.length} root${current.trustedRoots.length === 1 ? "" : "s"}${current.trustSources?.length ? ` and ${current.trustSources.length} trust source${current.trustSources.length === 1 ? "" : "s"}` : ""}; ${current.required ? "required" : "optional"}${setting === "walletAttestation" && issuer.walletAttestation?.requireChallenge ? "; with challenges" : ""}.`
          : "Not accepting attestations."}
      </p>
      {canManage && (
        <form onSubmit={save} aria-label={`${title} settings`}>
          <label>
            {rootsLabel}
            <textarea
              required={!useSource}
              rows={8}
              value={roots}
              onChange={(e) => setRoots(e.target.value)}
            />
          </label>
          <label className="inline">
            <input type="checkbox" checked={useSource} onChange={(e) => setUseSource(e.target.checked)} />
            Also trust attesters from a trust source (an ETSI list; roots are then optional)
          </label>
          {useSource && (
            <TrustSourceFields
              value={fromSource}
              onChange={setFromSource}
              defaultServiceType={WALLET_PROVIDER_SERVICE_TYPE}
              purpose="the attestation's x5c chain must end at a CA it names"
            />
          )}
          {setting === "keyAttestation" && (
            <div className="grid">
              <TextField
                label="Accepted key storage levels (optional)"
                value={keyStorage}
                placeholder="iso_18045_high, iso_18045_moderate"
                onChange={setKeyStorage}
              />
              <TextField
                label="Accepted user authentication levels (optional)"
                value={userAuthentication}
                placeholder="iso_18045_high, iso_18045_moderate"
                onChange={setUserAuthentication}
              />
            </div>
          )}
          <label className="inline">
            <input type="checkbox" checked={required} onChange={(e) => setRequired(e.target.checked)} />
            {requiredLabel}
          </label>
          {setting === "walletAttestation" && (
            <label className="inline">
              <input
                type="checkbox"
                checked={requireChallenge}
                onChange={(e) => setRequireChallenge(e.target.checked)}
              />
              Require challenges: each proof of possession must carry a challenge this issuer handed out
              (challenge endpoint), so proofs cannot be made ahead of time
            </label>
          )}
          <ErrorAlert error={update.error} title={`Could not save the ${title.toLowerCase()} settings`} />
          {update.isSuccess && <Success>{title} settings saved.</Success>}
          <div className="actions">
            <SubmitButton pending={update.isPending}>Save</SubmitButton>
            {current && (
              <button type="button" className="secondary danger" disabled={update.isPending} onClick={stop}>
                Stop accepting attestations
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
