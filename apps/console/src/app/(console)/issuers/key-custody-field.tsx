"use client";
import {
  KEY_CUSTODY_PURPOSES,
  type TIssuerKeyCustody,
  type TKeyCustody,
  type TKeyCustodyPurpose,
  type TKeyProvider,
  zKeyCustody,
} from "@cred/contracts/issuers";
import { ChoiceField, TextField } from "../../../components/form-fields";

/** How each provider the contract offers reads in the console; a provider added there needs a label here. */
const PROVIDER_LABELS: Record<TKeyProvider, string> = {
  software: "Software: keys sealed under the platform's master key",
  pkcs11: "PKCS#11 token: keys generated in the platform's HSM, never leaving it",
};

/** The issuer's key purposes whose custody can be chosen one by one, as the console names them. */
const PURPOSE_LABELS: Record<TKeyCustodyPurpose, string> = {
  credentialSigning: "Credential signing keys (also signed metadata)",
  statusListSigning: "Separate status list signing key",
  credentialRequestEncryption: "Credential request encryption keys",
};

/** The providers Issuers_Create and Issuers_Update accept, read from the same zod contract. */
export const KEY_CUSTODY_CHOICES = zKeyCustody.shape.provider.options.map((value) => ({
  value,
  label: PROVIDER_LABELS[value],
}));

export const isKeyProvider = (value: string): value is TKeyProvider =>
  (zKeyCustody.shape.provider.options as readonly string[]).includes(value);

/** What the custody fields hold: the default, an optional token label, and per purpose a provider or "default". */
export interface KeyCustodyDraft {
  provider: TKeyProvider;
  tokenLabel: string;
  purposes: Record<TKeyCustodyPurpose, TKeyProvider | "default">;
}

const sameChoice = (a: { provider: string; tokenLabel: string | null }, b: typeof a) =>
  a.provider === b.provider && a.tokenLabel === b.tokenLabel;

/** The fields' values for an issuer's custody in effect (a new issuer: software for everything). */
export function keyCustodyDraftOf(custody?: TIssuerKeyCustody): KeyCustodyDraft {
  const fallback = { provider: custody?.provider ?? "software", tokenLabel: custody?.tokenLabel ?? null };
  const purpose = (name: TKeyCustodyPurpose) => {
    const chosen = custody?.purposes[name];
    return !chosen || sameChoice(chosen, fallback) ? "default" : chosen.provider;
  };
  return {
    provider: fallback.provider,
    tokenLabel: fallback.tokenLabel ?? "",
    purposes: {
      credentialSigning: purpose("credentialSigning"),
      statusListSigning: purpose("statusListSigning"),
      credentialRequestEncryption: purpose("credentialRequestEncryption"),
    },
  };
}

/** The `keyCustody` member Issuers_Create and Issuers_Update take; the token label goes with every `pkcs11` choice. */
export function keyCustodyOf(draft: KeyCustodyDraft): TKeyCustody {
  const choice = (provider: TKeyProvider) => ({
    provider,
    ...(provider === "pkcs11" && draft.tokenLabel.trim() ? { tokenLabel: draft.tokenLabel.trim() } : {}),
  });
  const purposes = Object.fromEntries(
    KEY_CUSTODY_PURPOSES.flatMap((name) => {
      const provider = draft.purposes[name];
      return provider === "default" ? [] : [[name, choice(provider)]];
    }),
  );
  return { ...choice(draft.provider), ...(Object.keys(purposes).length > 0 ? { purposes } : {}) };
}

/**
 * Who holds keys (docs/key-custody.md): one provider. A platform without a token refuses `pkcs11`
 * (400 KeyProviderNotConfigured), which the form's error shows.
 */
export function KeyCustodyField({
  value,
  onChange,
}: {
  value: TKeyProvider;
  onChange: (value: TKeyProvider) => void;
}) {
  return (
    <ChoiceField
      label="Key custody"
      value={value}
      onChange={(chosen) => {
        if (isKeyProvider(chosen)) onChange(chosen);
      }}
      choices={KEY_CUSTODY_CHOICES}
    />
  );
}

/**
 * The issuer's key custody: who holds the keys made for it from now on, for every purpose or per
 * purpose, and in which PKCS#11 token. A platform without a token (or without the named one) refuses
 * it (400 KeyProviderNotConfigured / KeyTokenNotConfigured), which the form's error shows.
 */
export function IssuerKeyCustodyFields({
  value,
  onChange,
}: {
  value: KeyCustodyDraft;
  onChange: (value: KeyCustodyDraft) => void;
}) {
  const usesToken =
    value.provider === "pkcs11" || Object.values(value.purposes).some((provider) => provider === "pkcs11");
  return (
    <>
      <KeyCustodyField value={value.provider} onChange={(provider) => onChange({ ...value, provider })} />
      {KEY_CUSTODY_PURPOSES.map((name) => (
        <ChoiceField
          key={name}
          label={PURPOSE_LABELS[name]}
          value={value.purposes[name]}
          onChange={(chosen) => {
            if (chosen === "default" || isKeyProvider(chosen))
              onChange({ ...value, purposes: { ...value.purposes, [name]: chosen } });
          }}
          choices={[{ value: "default", label: "As the key custody above" }, ...KEY_CUSTODY_CHOICES]}
        />
      ))}
      {usesToken && (
        <TextField
          label="PKCS#11 token label (optional; empty: the platform's token)"
          value={value.tokenLabel}
          maxLength={32}
          onChange={(tokenLabel) => onChange({ ...value, tokenLabel })}
        />
      )}
    </>
  );
}

/** Where the issuer's keys of each purpose are made from now on, as Issuers_Get reports it. */
export function KeyCustodySummary({ custody }: { custody: TIssuerKeyCustody }) {
  return (
    <ul className="hint" data-testid="key-custody-purposes">
      {KEY_CUSTODY_PURPOSES.map((name) => {
        const chosen = custody.purposes[name];
        return (
          <li key={name}>
            {PURPOSE_LABELS[name]}:{" "}
            {chosen.provider === "pkcs11"
              ? `PKCS#11 token ${chosen.tokenLabel ? `'${chosen.tokenLabel}'` : "(the platform's)"}`
              : "software (sealed in the database)"}
          </li>
        );
      })}
    </ul>
  );
}
