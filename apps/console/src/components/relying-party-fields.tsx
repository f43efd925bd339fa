"use client";
import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { useAllResourceItems } from "../lib/resource-lists";
import { useTRPC } from "../lib/trpc";
import { useCan } from "./session";

/** Whom a policy verifies for (docs/api/relying-party-certificates.md, "Intermediaries"). */
export interface RelyingPartyChoice {
  /** "" for the environment itself. */
  relyingPartyId: string;
  /** None chosen: the relying party's every registration certificate (or the default one without a party). */
  registrationCertificateIds: string[];
}

export const NO_RELYING_PARTY: RelyingPartyChoice = { relyingPartyId: "", registrationCertificateIds: [] };

/** The policy members the choice sets: `relyingPartyId` and `registrationCertificateIds`, when chosen. */
export function relyingPartyRules(choice: RelyingPartyChoice) {
  return {
    ...(choice.relyingPartyId ? { relyingPartyId: choice.relyingPartyId } : {}),
    ...(choice.registrationCertificateIds.length
      ? { registrationCertificateIds: choice.registrationCertificateIds }
      : {}),
  };
}

/**
 * The policy form's relying party and registration certificates: the environment itself or a relying
 * party it acts for as an intermediary, then which of that party's registration certificates (or, for the
 * environment itself, of its own added by id) the verifications carry.
 */
export function RelyingPartyFields({
  value,
  onChange,
}: {
  value: RelyingPartyChoice;
  onChange: (value: RelyingPartyChoice) => void;
}) {
  const trpc = useTRPC();
  const canRead = useCan("verification-policies.read");
  const parties = useAllResourceItems("relyingParties");
  const ofParty = useQuery({
    ...trpc.relyingParties.listRegistrationCertificates.queryOptions({
      relyingPartyId: value.relyingPartyId,
      limit: 100,
    }),
    enabled: canRead && Boolean(value.relyingPartyId),
  });
  const own = useQuery({
    ...trpc.verifierCertificates.listRegistrations.queryOptions({ limit: 100 }),
    enabled: canRead && !value.relyingPartyId,
  });
  const selectId = useId();
  if (!canRead) return null;
  const certificates = value.relyingPartyId
    ? (ofParty.data?.data ?? [])
    : (own.data?.data ?? []).filter((c) => c.relyingPartyId === null && !c.default);
  const toggle = (id: string, on: boolean) =>
    onChange({
      ...value,
      registrationCertificateIds: on
        ? [...value.registrationCertificateIds, id]
        : value.registrationCertificateIds.filter((c) => c !== id),
    });
  return (
    <fieldset data-testid="policy-relying-party">
      <legend>Relying party</legend>
      <label htmlFor={selectId}>Verifies for</label>
      <select
        id={selectId}
        value={value.relyingPartyId}
        onChange={(e) => onChange({ relyingPartyId: e.target.value, registrationCertificateIds: [] })}
      >
        <option value="">This environment itself</option>
        {(parties.data?.items ?? []).map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} ({p.identifiers.join(", ")})
          </option>
        ))}
      </select>
      {certificates.length > 0 && (
        <>
          <p className="hint">
            Registration certificates to carry in verifier_info;{" "}
            {value.relyingPartyId ? "none ticked: all of the party's." : "none ticked: the default one."}
          </p>
          {certificates.map((c) => (
            <label className="inline" key={c.id}>
              <input
                type="checkbox"
                checked={value.registrationCertificateIds.includes(c.id)}
                onChange={(e) => toggle(c.id, e.target.checked)}
              />
              {c.name ?? c.id} <code>{c.id}</code>
              {c.expiresAt ? ` (expires ${new Date(c.expiresAt).toLocaleDateString()})` : ""}
            </label>
          ))}
        </>
      )}
      {value.relyingPartyId && ofParty.isSuccess && certificates.length === 0 && (
        <p className="hint">
          This relying party has no registration certificate yet: its verifications are refused until one is
          added.
        </p>
      )}
    </fieldset>
  );
}
