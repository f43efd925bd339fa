import type { TNextSigningKey } from "@cred/contracts/issuers";
import { certificateOfKey, nextSigningKeyRowOf, type WithIssuerKeys } from "./issuer-keys";
import { type StoredSigningCertificate, signingCertificateDto } from "./stored-signing-certificate";

/** The prepared next signing key as the issuer resource and the JWKS show it. */
export interface NextSigningKey {
  /** The IssuerKey row's id. */
  id: string;
  kid: string;
  publicJwk: Record<string, unknown>;
  preparedAt: string;
  signingCertificate?: StoredSigningCertificate;
}

/** The prepared next key of an issuer (its private part sealed or in its provider); null when none is prepared. */
export function nextSigningKeyOf(row: WithIssuerKeys): NextSigningKey | null {
  const key = nextSigningKeyRowOf(row);
  if (!key) return null;
  const certificate = certificateOfKey(key);
  return {
    id: key.id,
    kid: key.kid,
    publicJwk: key.publicJwk as Record<string, unknown>,
    preparedAt: (key.preparedAt ?? key.createdAt).toISOString(),
    ...(certificate ? { signingCertificate: certificate } : {}),
  };
}

export function nextSigningKeyDto(row: WithIssuerKeys): TNextSigningKey | null {
  const next = nextSigningKeyOf(row);
  if (!next) return null;
  return {
    kid: next.kid,
    alg: "ES256",
    publicJwk: next.publicJwk,
    preparedAt: next.preparedAt,
    signingCertificate: signingCertificateDto(next.signingCertificate ?? null),
  };
}
