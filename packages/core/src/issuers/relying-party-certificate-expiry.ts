import { X509Certificate } from "node:crypto";
import {
  CERTIFICATE_EXPIRY_WARNING_DAYS,
  type TRelyingPartyCertificateExpiry,
} from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import { organisationIdentifiersOf, splitPemCertificates } from "@cred/oid4vc";
import type { KeyCustody } from "../shared/key-custody";
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

/**
 * Where the access certificate's key is held, for its detail (docs/key-custody.md), and whether it can
 * sign now: a key in a token is checked there, and a token that cannot be reached (request objects
 * cannot be signed: 503) makes the certificate unusable.
 */
async function keyLocation(
  keyCustody: KeyCustody,
  row: { keyProvider: string | null; providerKeyRef: string | null },
): Promise<{ text: string; usable: boolean }> {
  const provider = row.keyProvider ?? "software";
  if (provider === "software" || row.providerKeyRef === null)
    return { text: " Its key is sealed under the master key in the database.", usable: true };
  if (!keyCustody.has(provider))
    return {
      text: ` Its key is held by the '${provider}' key provider, which this process is not configured with: request objects cannot be signed.`,
      usable: false,
    };
  const custodian = keyCustody.provider(provider);
  const key = { provider, providerKeyRef: row.providerKeyRef, privateKeyCipher: null, sealedFor: "" };
  const status = await custodian.status(key);
  if (!status.reachable)
    return {
      text: ` Its key is held in ${status.location}, which is unreachable (${status.reason ?? "no answer"}): request objects cannot be signed until it answers.`,
      usable: false,
    };
  if (!(await custodian.holds(key)))
    return {
      text: ` Its key (${row.providerKeyRef}) is missing from ${status.location}: request objects cannot be signed.`,
      usable: false,
    };
  return { text: ` Its key is held in ${status.location}.`, usable: true };
}

async function accessCertificate(db: UnitOfWork, keyCustody: KeyCustody, scope: TenantScope, now: Date) {
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
  const expiry = statusOf(expiresAt, now);
  const key = await keyLocation(keyCustody, row!);
  return {
    ...base,
    status: expiry !== "expired" && !key.usable ? "unusable" : expiry,
    expiresAt: expiresAt.toISOString(),
    detail: `The access certificate for ${organisations.join(", ")} ${whenText(expiresAt, now)}${
      expiry === "valid" ? "." : "; create a new signing request and import the renewed certificate."
    }${key.text}`,
  } satisfies TRelyingPartyCertificateExpiry;
}

async function registrationCertificate(
  db: UnitOfWork,
  scope: TenantScope,
  now: Date,
): Promise<TRelyingPartyCertificateExpiry> {
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
  return registrationExpiryEntry(base, row.expiresAt, now, {
    subject: "The registration certificate",
    expired: "verifications are refused (409 NotRegistered) until a renewed one is uploaded",
    expiring: "ask the registrar for a renewed one and upload it",
  });
}

/**
 * A registration certificate's readiness entry: valid without an expiry (`exp`), else its status at `now`
 * with `texts.subject` and what to do when it has expired or is about to.
 */
function registrationExpiryEntry<Base extends Pick<TRelyingPartyCertificateExpiry, "id" | "title">>(
  base: Base,
  expiresAt: Date | null,
  now: Date,
  texts: { subject: string; expired: string; expiring: string },
) {
  if (!expiresAt)
    return {
      ...base,
      status: "valid",
      expiresAt: null,
      detail: `${texts.subject} names no expiry (exp).`,
    } satisfies TRelyingPartyCertificateExpiry;
  const status = statusOf(expiresAt, now);
  const advice =
    status === "expired" ? `; ${texts.expired}.` : status === "expiring" ? `; ${texts.expiring}.` : ".";
  return {
    ...base,
    status,
    expiresAt: expiresAt.toISOString(),
    detail: `${texts.subject} ${whenText(expiresAt, now)}${advice}`,
  } satisfies TRelyingPartyCertificateExpiry;
}

/**
 * One entry per registration certificate added by id (VerifierRegistrationCertificates_Add, or held for
 * a relying party: RelyingParties_AddRegistrationCertificate), after the default one.
 */
async function otherRegistrationCertificates(db: UnitOfWork, scope: TenantScope, now: Date) {
  const rows = await issuerRepository.otherRegistrationExpiries(db, scope);
  return rows.map((row) => {
    const whose = row.relyingPartyId
      ? `of relying party ${row.relyingPartyName ?? row.relyingPartyId}`
      : (row.name ?? row.id);
    const base = {
      id: "registration-certificate",
      title: `Registration certificate ${whose}`,
      registrationCertificateId: row.id,
      relyingPartyId: row.relyingPartyId,
    } as const;
    return registrationExpiryEntry(base, row.expiresAt, now, {
      subject: `Registration certificate ${row.id}`,
      expired:
        "verifications under policies naming it are refused (409 NotRegistered) until a renewed one is added and named",
      expiring: "ask the registrar for a renewed one, add it and name it in the policies",
    });
  });
}

/**
 * The expiry of the environment's relying-party certificates, for the readiness checklist: expired is a
 * failure, within CERTIFICATE_EXPIRY_WARNING_DAYS a warning; the access certificate's detail also says
 * where its key is held, and it is `unusable` (a failure) while that key cannot sign. Reads only: no certificate is generated.
 * Read here rather than through the verifier-certificates slice, which sits above issuers (coreLayers).
 */
export async function relyingPartyCertificateExpiry(
  db: UnitOfWork,
  keyCustody: KeyCustody,
  scope: TenantScope,
  now = new Date(),
): Promise<TRelyingPartyCertificateExpiry[]> {
  const others = await otherRegistrationCertificates(db, scope, now);
  const primary = await registrationCertificate(db, scope, now);
  // "No registration certificate" would mislead while others are kept by id.
  const defaultEntry = primary.status === "absent" && others.length > 0 ? [] : [primary];
  return [await accessCertificate(db, keyCustody, scope, now), ...defaultEntry, ...others];
}
