import type { KeyObject } from "node:crypto";
import { createPrivateKey } from "node:crypto";
import { isUniqueViolation } from "@cred/db";
import { generateVerifierCertificate, parseVerifierCertificate } from "@cred/oid4vc";
import type { AppDeps } from "../context";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import { verificationRepository } from "./verification-repository";

export type ClientIdPrefix = "x509_hash" | "x509_san_dns";

/** The verifier as wallets see it: signing key, `x5c` chain and the client ids it can use. */
export interface VerifierIdentity {
  certificateId: string;
  x5c: string[];
  /** Imported once; request objects are signed with it directly. */
  privateKey: KeyObject;
  clientIds: { x509_hash: string; x509_san_dns: string };
}

const MAX_CACHED = 1000;
const cache = new Map<string, Promise<VerifierIdentity>>();

function sealContext(scope: TenantScope) {
  return `verifier-certificate:${scope.tenantId}:${scope.environment}`;
}

/** The DNS name of the public base URL (the verifier's x509_san_dns identity). */
export function verifierDnsName(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

async function load(deps: AppDeps, scope: TenantScope): Promise<VerifierIdentity> {
  const db = deps.database.prisma;
  let row = await verificationRepository.findVerifierCertificate(db, scope);
  if (!row) {
    // First verification of this tenant + environment: generate a CA + leaf (the CA key is discarded,
    // so the leaf can never be re-issued from it; replace the row to rotate).
    const generated = await generateVerifierCertificate({
      dnsName: verifierDnsName(deps.config.publicBaseUrl),
    });
    const id = newId("vcert");
    try {
      row = await verificationRepository.createVerifierCertificate(db, {
        id,
        ...scope,
        chainPem: generated.certificateChainPem,
        privateKeyCipher: deps.secretBox.seal(JSON.stringify(generated.privateKeyJwk), sealContext(scope)),
        dnsName: generated.dnsName,
        uploaded: false,
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      row = await verificationRepository.findVerifierCertificate(db, scope);
      if (!row) throw error;
    }
  }
  const privateJwk = JSON.parse(deps.secretBox.open(row.privateKeyCipher, sealContext(scope)));
  const parsed = parseVerifierCertificate({ certificateChainPem: row.chainPem, privateKey: privateJwk });
  return {
    certificateId: row.id,
    x5c: parsed.x5c,
    privateKey: createPrivateKey({ key: privateJwk, format: "jwk" }),
    clientIds: { x509_hash: parsed.clientIds.x509Hash, x509_san_dns: parsed.clientIds.x509SanDns },
  };
}

/**
 * The verifier certificate of a tenant + environment, generated on first use and cached in memory with
 * its decrypted, imported key (one database read and one decryption per process).
 */
export function getVerifierIdentity(deps: AppDeps, scope: TenantScope): Promise<VerifierIdentity> {
  const key = `${scope.tenantId}|${scope.environment}`;
  let identity = cache.get(key);
  if (!identity) {
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    identity = load(deps, scope);
    identity.catch(() => cache.delete(key));
    cache.set(key, identity);
  }
  return identity;
}
