"use client";
import {
  KEY_CUSTODY_PURPOSES,
  type TIssuerKeyCustody,
  type TKeyCustodyPurpose,
  type TKeyProvider,
  zKeyCustody,
} from "@cred/contracts/issuers";
import { ChoiceField, TextField } from "../../../components/form-fields";
import type { KeyCustodyDraft } from "../../../lib/key-custody-draft";

export { type KeyCustodyDraft, keyCustodyDraftOf, keyCustodyOf } from "../../../lib/key-custody-draft";

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
