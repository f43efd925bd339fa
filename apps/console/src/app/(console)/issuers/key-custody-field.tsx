"use client";
import { type TKeyProvider, zKeyCustody } from "@cred/contracts/issuers";
import { ChoiceField } from "../../../components/form-fields";

/** How each provider the contract offers reads in the console; a provider added there needs a label here. */
const PROVIDER_LABELS: Record<TKeyProvider, string> = {
  software: "Software: keys sealed under the platform's master key",
  pkcs11: "PKCS#11 token: keys generated in the platform's HSM, never leaving it",
};

/** The providers Issuers_Create and Issuers_Update accept, read from the same zod contract. */
export const KEY_CUSTODY_CHOICES = zKeyCustody.shape.provider.options.map((value) => ({
  value,
  label: PROVIDER_LABELS[value],
}));

export const isKeyProvider = (value: string): value is TKeyProvider =>
  (zKeyCustody.shape.provider.options as readonly string[]).includes(value);

/**
 * The issuer's key custody (docs/key-custody.md): who holds the keys made for it from now on. A platform
 * without a token refuses `pkcs11` (400 KeyProviderNotConfigured), which the form's error shows.
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
