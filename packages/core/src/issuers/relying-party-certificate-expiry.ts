import { X509Certificate } from "node:crypto";
import {
  CERTIFICATE_EXPIRY_WARNING_DAYS,
  type TRelyingPartyCertificateExpiry,
} from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import { organisationIdentifiersOf, splitPemCertificates } from "@cred/oid4vc";
import type { TenantScope } from "../shared/principal";
import { issuerRepository } from "./issuer-repository";

const DAY_MS = 86_400_000;

type Status = TRelyingPartyCertificateExpiry["status"];

function statusOf(expiresAt: Date, now: Date): Status {
  if (expiresAt.getTime() <= now.getTime()) return "expired";
  return expiresAt.getTime() - now.getTime() <= CERTIFICATE_EXPIRY_WARNING_DAYS * DAY_MS
    ? "expiring"
    : "valid";
}

function whenText(expiresAt: Date, now: Date): string {
  const days = Math.ceil((expiresAt.getTime() - now.getTime()) / DAY_MS);
  return days > 0
    ? `expires on ${expiresAt.toISOString()} (in ${days} day(s))`
    : `expired on ${expiresAt.toISOString()}`;
}

async function accessCertificate(db: UnitOfWork, scope: TenantScope, now: Date) {
  const base = { id: "access-certificate", title: "Access certificate" } as const;
  const row = await issuerRepository.findVerifierCertificateChain(db, scope);
  const leaf = row ? new X509Certificate(splitPemCertificates(row.chainPem)[0]!) : null;
  const organisations = leaf ? organisationIdentifiersOf(leaf.raw) : [];
  if (!leaf || organisations.length === 0)
    return {
      ...base,
      status: "absent",
      expiresAt: null,
      detail:
        "The verifier certificate in use is not an access certificate (no organizationIdentifier); create a signing request and import the access CA's certificate (VerifierCertificates_CreateSigningRequest).",
    } satisfies TRelyingPartyCertificateExpiry;
  const expiresAt = new Date(leaf.validTo);
  const status = statusOf(expiresAt, now);
  return {
    ...base,
    status,
    expiresAt: expiresAt.toISOString(),
    detail: `The access certificate for ${organisations.join(", ")} ${whenText(expiresAt, now)}${
      status === "valid" ? "." : "; create a new signing request and import the renewed certificate."
    }`,
  } satisfies TRelyingPartyCertificateExpiry;
}

async function registrationCertificate(db: UnitOfWork, scope: TenantScope, now: Date) {
  const base = { id: "registration-certificate", title: "Registration certificate" } as const;
  const row = await issuerRepository.findRegistrationExpiry(db, scope);
  if (!row)
    return {
      ...base,
      status: "absent",
      expiresAt: null,
      detail:
        "No registration certificate is installed; verifications are not limited by one nor carry it (VerifierRegistrationCertificates_Upload).",
    } satisfies TRelyingPartyCertificateExpiry;
  if (!row.expiresAt)
    return {
      ...base,
      status: "valid",
      expiresAt: null,
      detail: "The registration certificate names no expiry (exp).",
    } satisfies TRelyingPartyCertificateExpiry;
  const status = statusOf(row.expiresAt, now);
  return {
    ...base,
    status,
    expiresAt: row.expiresAt.toISOString(),
    detail: `The registration certificate ${whenText(row.expiresAt, now)}${
      status === "expired"
        ? "; verifications are refused (409 NotRegistered) until a renewed one is uploaded."
        : status === "expiring"
          ? "; ask the registrar for a renewed one and upload it."
          : "."
    }`,
  } satisfies TRelyingPartyCertificateExpiry;
}

/**
 * The expiry of the environment's relying-party certificates, for the readiness checklist: expired is a
 * failure, within CERTIFICATE_EXPIRY_WARNING_DAYS a warning. Reads only: no certificate is generated.
 * Read here rather than through the verifier-certificates slice, which sits above issuers (coreLayers).
 */
export async function relyingPartyCertificateExpiry(
  db: UnitOfWork,
  scope: TenantScope,
  now = new Date(),
): Promise<TRelyingPartyCertificateExpiry[]> {
  return [await accessCertificate(db, scope, now), await registrationCertificate(db, scope, now)];
}
