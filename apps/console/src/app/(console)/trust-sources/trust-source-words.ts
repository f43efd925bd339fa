import type { TTrustSource } from "@cred/contracts/trust-sources";

/** The kinds as the create form offers them (docs/api/trust-sources.md). */
export const KIND_CHOICES: { value: TTrustSource["kind"]; label: string }[] = [
  { value: "lotl", label: "LoTL: list of trusted lists (ETSI TS 119 612, XML)" },
  { value: "tsl", label: "TSL: one trusted list (ETSI TS 119 612, XML)" },
  { value: "lote", label: "LoTE: list of trusted entities (ETSI TS 119 602, JWS)" },
];

export const KIND_WORDS: Record<TTrustSource["kind"], string> = {
  lotl: "LoTL",
  tsl: "TSL",
  lote: "LoTE",
};

export const STATUS_WORDS: Record<TTrustSource["status"], string> = {
  current: "Current: the last refresh verified the list.",
  stale: "Stale: the last refresh failed; the last good copy is used until its NextUpdate.",
  expired:
    "Expired: the last good copy has passed its NextUpdate and trusts nothing until a refresh succeeds.",
  pending: "Pending: no copy has verified yet.",
};

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Several certificates pasted together are several signers; anything else goes as given, for the API to refuse. */
export function pemBlocks(text: string): string[] {
  return text.match(PEM_BLOCK) ?? (text.trim() ? [text] : []);
}

/** The last part of a service type URI (e.g. `CA/QC` of `…/Svctype/CA/QC`), for narrow columns. */
export function shortServiceType(uri: string): string {
  const match = /\/(?:Svctype|SvcType)\/(.+)$/i.exec(uri);
  return match ? match[1]! : uri;
}

/** The last part of a status URI (`granted` of `…/Svcstatus/granted`); "none" when the profile has none. */
export function shortStatus(uri: string | null): string {
  if (!uri) return "none";
  return uri.slice(uri.lastIndexOf("/") + 1);
}
