import type { TIssuer, TSigningKeyChoice } from "@cred/contracts/issuers";
import {
  createIssuerCertificateRequest,
  InvalidIssuerCertificateError,
  parseIssuerCertificateChain,
} from "@cred/oid4vc";
import type { JWK } from "jose";
import { organisationRepository } from "../organisations";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { credentialIssuerIdentifier } from "./credential-issuer-identifier";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { storedKeyOf } from "./issuer-key-custody";
import { issuerKeyRepository } from "./issuer-key-repository";
import { certificateOfKey, currentSigningKeyOf } from "./issuer-keys";
import { issuerRepository } from "./issuer-repository";
import { noNextSigningKey } from "./next-signing-key";
import { nextSigningKeyOf } from "./stored-next-signing-key";
import type { StoredSigningCertificate } from "./stored-signing-certificate";

/**
 * A PKCS#10 request for the issuer's current or prepared next key, for the operator's CA (see
 * `createIssuerCertificateRequest`): CN the issuer's name, O its organisation's. No next key → 409.
 */
export async function getIssuerCertificateSigningRequest(
  deps: IssuerDeps,
  caller: IssuerCaller,
  issuerId: string,
  key: TSigningKeyChoice = "current",
) {
  const issuer = await findVisibleIssuer(deps.db, caller, issuerId);
  const next = nextSigningKeyOf(issuer);
  if (key === "next" && !next) throw noNextSigningKey();
  const current = currentSigningKeyOf(issuer);
  const row = key === "next" ? issuer.keys.find((k) => k.id === next!.id)! : current;
  const organisation = await organisationRepository.findById(
    deps.db,
    scopeOfCaller(caller),
    issuer.organisationId,
  );
  // Signed by the key's provider: inside the HSM for a `pkcs11` key, proving possession without it leaving.
  const stored = storedKeyOf(row);
  const certificateSigningRequestPem = await createIssuerCertificateRequest({
    signingKey: await deps.keyCustody.of(stored).signingKey(stored),
    publicJwk: row.publicJwk as JWK,
    commonName: issuer.displayName,
    organisationName: organisation?.displayName,
    credentialIssuer: credentialIssuerIdentifier(deps.config, issuer.id),
  });
  return { certificateSigningRequestPem, signingKid: key === "next" ? next!.kid : current.kid };
}

/**
 * Sets the certificate chain of the issuer's current key (or of the prepared next key, `key: next`,
 * which only stores it with that key until a rotation promotes both) (checked by `parseIssuerCertificateChain` →
 * 400 InvalidCertificate, one detail per problem), or removes it (`null`); the same chain again, or
 * removing none, changes nothing. Otherwise every status list gets a new
 * version in the same transaction, so its token is signed again with or without `x5c`. Other processes
 * follow within the issuer cache's lifetime; this one forgets the issuer once committed.
 */
export async function setIssuerSigningCertificate(
  deps: IssuerDeps,
  caller: IssuerCaller,
  input: { issuerId: string; certificateChainPem: string | null; key?: TSigningKeyChoice },
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  return deps.db.transaction(async (tx) => {
    // Under the lock, so that a concurrent rotation cannot slip a new key under the checked chain.
    const issuer = await lockVisibleIssuer(tx, caller, input.issuerId);
    const next = nextSigningKeyOf(issuer);
    const forNext = input.key === "next";
    if (forNext && !next) throw noNextSigningKey();
    const currentKey = currentSigningKeyOf(issuer);
    const publicJwk = (forNext ? next!.publicJwk : currentKey.publicJwk) as JWK;
    let stored: StoredSigningCertificate | null = null;
    if (input.certificateChainPem !== null) {
      const parsed = parseChainOrThrow(input.certificateChainPem, publicJwk, deps, issuer.id);
      stored = {
        chainPem: parsed.chainPem,
        x5c: parsed.x5c,
        notBefore: parsed.notBefore.toISOString(),
        notAfter: parsed.notAfter.toISOString(),
      };
    }
    const current = forNext ? (next!.signingCertificate ?? null) : certificateOfKey(currentKey);
    if ((current?.chainPem ?? null) === (stored?.chainPem ?? null))
      return loadIssuerDto(tx, deps.config, scope, issuer);
    const keyId = forNext ? next!.id : currentKey.id;
    await issuerKeyRepository.setCertificate(
      tx,
      deps.caches,
      scope,
      { id: keyId, issuerId: issuer.id },
      stored,
    );
    await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: new Date() });
    if (!forNext) await issuerRepository.bumpStatusListVersions(tx, issuer.id);
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}

function parseChainOrThrow(certificateChainPem: string, publicJwk: JWK, deps: IssuerDeps, issuerId: string) {
  try {
    return parseIssuerCertificateChain({
      certificateChainPem,
      publicJwk,
      credentialIssuer: credentialIssuerIdentifier(deps.config, issuerId),
    });
  } catch (error) {
    if (!(error instanceof InvalidIssuerCertificateError)) throw error;
    throw new DomainError(
      "InvalidCertificate",
      "The certificate chain cannot be used for this issuer's signing key; see details.",
      error.issues.map((message) => ({ code: "InvalidCertificate", target: "certificateChainPem", message })),
    );
  }
}
