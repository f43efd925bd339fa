import type { TWalletAttestation } from "@cred/contracts/issuers";

/** The trust sources wallet attestation settings name, with where each is in the request. */
export function attesterSourcesOf(settings: TWalletAttestation | null | undefined) {
  return (settings?.trustSources ?? []).map((source, i) => ({
    trustSourceId: source.trustSourceId,
    target: `walletAttestation.trustSources.${i}.trustSourceId`,
  }));
}
