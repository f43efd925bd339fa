import {
  KEY_CUSTODY_PURPOSES,
  type TIssuerKeyCustody,
  type TKeyCustody,
  type TKeyCustodyPurpose,
  type TKeyProvider,
} from "@cred/contracts/issuers";

/**
 * What the issuer forms' key custody fields hold (docs/key-custody.md): the default provider, one
 * PKCS#11 token label (the console offers one for every `pkcs11` choice; the API takes one per purpose),
 * and per purpose a provider or "default" (as the default).
 */
export interface KeyCustodyDraft {
  provider: TKeyProvider;
  tokenLabel: string;
  purposes: Record<TKeyCustodyPurpose, TKeyProvider | "default">;
}

const sameChoice = (a: { provider: string; tokenLabel: string | null }, b: typeof a) =>
  a.provider === b.provider && a.tokenLabel === b.tokenLabel;

/** The fields' values for an issuer's custody in effect (none: a new issuer, software for everything). */
export function keyCustodyDraftOf(custody?: TIssuerKeyCustody): KeyCustodyDraft {
  const fallback = { provider: custody?.provider ?? "software", tokenLabel: custody?.tokenLabel ?? null };
  const chosen = KEY_CUSTODY_PURPOSES.map((name) => custody?.purposes[name]);
  const purpose = (index: number) => {
    const choice = chosen[index];
    return !choice || sameChoice(choice, fallback) ? "default" : choice.provider;
  };
  const tokenLabel =
    fallback.tokenLabel ?? chosen.find((choice) => choice?.provider === "pkcs11")?.tokenLabel ?? "";
  return {
    provider: fallback.provider,
    tokenLabel,
    purposes: {
      credentialSigning: purpose(0),
      statusListSigning: purpose(1),
      credentialRequestEncryption: purpose(2),
    },
  };
}

/** The `keyCustody` member Issuers_Create and Issuers_Update take; the token label goes with every `pkcs11` choice. */
export function keyCustodyOf(draft: KeyCustodyDraft): TKeyCustody {
  const label = draft.tokenLabel.trim();
  const choice = (provider: TKeyProvider) => ({
    provider,
    ...(provider === "pkcs11" && label ? { tokenLabel: label } : {}),
  });
  const purposes = Object.fromEntries(
    KEY_CUSTODY_PURPOSES.flatMap((name) => {
      const provider = draft.purposes[name];
      return provider === "default" ? [] : [[name, choice(provider)]];
    }),
  );
  return { ...choice(draft.provider), ...(Object.keys(purposes).length > 0 ? { purposes } : {}) };
}
