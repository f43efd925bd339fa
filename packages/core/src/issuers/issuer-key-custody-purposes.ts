import {
  KEY_CUSTODY_PURPOSES,
  type TIssuerKeyCustody,
  type TKeyCustody,
  type TKeyCustodyChoice,
  type TKeyCustodyPurpose,
  type TKeyProvider,
} from "@cred/contracts/issuers";
import type { ErrorDetail } from "../shared/errors";
import {
  type CustodyChoice,
  custodyChoiceProblem,
  type KeyCustody,
  keyCustodyNotConfigured,
} from "../shared/key-custody";
import type { IssuerKeyPurpose } from "./issuer-keys";

/**
 * Custody per key purpose (docs/key-custody.md): an issuer's `keyCustody` names a default provider
 * (and token) and may override it per purpose. What `Issuer.keyCustodyPurposes` stores: the default
 * token and every purpose's resolved choice, written whenever `keyCustody` is set; null on rows written
 * before purposes existed, whose purposes all follow `Issuer.keyProvider` in the platform's token.
 */
export interface StoredKeyCustodyPurposes {
  tokenLabel: string | null;
  purposes: Record<TKeyCustodyPurpose, CustodyChoice>;
}

/** The contract's name of a key row's purpose. */
const PURPOSE_OF_ROW: Record<IssuerKeyPurpose, TKeyCustodyPurpose> = {
  credential_signing: "credentialSigning",
  status_list_signing: "statusListSigning",
  credential_request_encryption: "credentialRequestEncryption",
};

type IssuerCustodyColumns = { keyProvider: string; keyCustodyPurposes: unknown };

/** The issuer's custody in effect: the default and each purpose's choice. */
export function issuerKeyCustodyOf(issuer: IssuerCustodyColumns): TIssuerKeyCustody {
  const stored = issuer.keyCustodyPurposes as StoredKeyCustodyPurposes | null;
  const provider = issuer.keyProvider as TKeyProvider;
  const choice = (purpose: TKeyCustodyPurpose) => {
    const chosen = stored?.purposes[purpose] ?? { provider, tokenLabel: null };
    return { provider: chosen.provider as TKeyProvider, tokenLabel: chosen.tokenLabel };
  };
  return {
    provider,
    tokenLabel: stored?.tokenLabel ?? null,
    purposes: {
      credentialSigning: choice("credentialSigning"),
      statusListSigning: choice("statusListSigning"),
      credentialRequestEncryption: choice("credentialRequestEncryption"),
    },
  };
}

/** Where keys of one purpose are made for the issuer from now on. */
export function custodyOf(issuer: IssuerCustodyColumns, purpose: IssuerKeyPurpose): CustodyChoice {
  return issuerKeyCustodyOf(issuer).purposes[PURPOSE_OF_ROW[purpose]];
}

/** Whether two choices name the same store. */
export const sameCustody = (a: CustodyChoice, b: CustodyChoice) =>
  a.provider === b.provider && a.tokenLabel === b.tokenLabel;

/**
 * Checks a requested `keyCustody` against the providers and tokens this process has, and resolves it
 * into what the issuer row stores: `keyProvider` (the default) and every purpose's choice with its
 * token label (a `pkcs11` choice without one takes the platform's token, so that the issuer keeps
 * naming that token). 400 `ValidationFailed` with one detail per problem: `KeyProviderNotConfigured`
 * (a provider this platform lacks), `KeyTokenNotConfigured` (a token label it does not know, or one
 * given with `software`).
 */
export function resolveKeyCustody(
  keyCustody: KeyCustody,
  requested: TKeyCustody,
): { keyProvider: string; keyCustodyPurposes: StoredKeyCustodyPurposes } {
  const details: ErrorDetail[] = [];
  const resolve = (choice: TKeyCustodyChoice, target: string): CustodyChoice => {
    const wanted = { provider: choice.provider, tokenLabel: choice.tokenLabel ?? null };
    const problem = custodyChoiceProblem(keyCustody, wanted, target);
    if (problem) {
      details.push(problem);
      return wanted;
    }
    return { provider: wanted.provider, tokenLabel: keyCustody.tokenLabelOf(wanted) };
  };
  const fallback = resolve(requested, "keyCustody");
  const purposes = Object.fromEntries(
    KEY_CUSTODY_PURPOSES.map((purpose) => {
      const own = requested.purposes?.[purpose];
      return [purpose, own ? resolve(own, `keyCustody.purposes.${purpose}`) : fallback];
    }),
  ) as Record<TKeyCustodyPurpose, CustodyChoice>;
  if (details.length > 0) throw keyCustodyNotConfigured(details);
  return {
    keyProvider: requested.provider,
    keyCustodyPurposes: { tokenLabel: fallback.tokenLabel, purposes },
  };
}
