/** The trust sources attestation settings name, with where each is in the request. */
export function attesterSourcesOf(
  settings: { trustSources?: { trustSourceId: string }[] } | null | undefined,
  member: "walletAttestation" | "keyAttestation",
) {
  return (settings?.trustSources ?? []).map((source, i) => ({
    trustSourceId: source.trustSourceId,
    target: `${member}.trustSources.${i}.trustSourceId`,
  }));
}
