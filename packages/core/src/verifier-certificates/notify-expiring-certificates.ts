import { X509Certificate } from "node:crypto";
import type { Environment } from "@cred/contracts/scopes";
import { organisationIdentifiersOf, splitPemCertificates } from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { emitEvent } from "../shared/outbox";
import { verifierCertificateRepository as repo } from "./verifier-certificate-repository";

const DAY_MS = 86_400_000;

const daysLeft = (at: Date, now: Date) => Math.ceil((at.getTime() - now.getTime()) / DAY_MS);

/** The leaf's notAfter and organisation identifiers; null for a chain that does not parse. */
function leafOf(
  chainPem: string,
): { notAfter: Date; subject: string; serialNumber: string; organisationIdentifiers: string[] } | null {
  try {
    const leaf = new X509Certificate(splitPemCertificates(chainPem)[0]!);
    return {
      notAfter: new Date(leaf.validTo),
      // As VerifierCertificates_Get shows them.
      subject: leaf.subject.split("\n").join(", "),
      serialNumber: leaf.serialNumber,
      organisationIdentifiers: organisationIdentifiersOf(leaf.raw),
    };
  } catch {
    return null;
  }
}

/**
 * The worker's sweep (docs/api/relying-party-certificates.md): once a relying-party certificate is within
 * `config.certificateExpiryNoticeDays` of its expiry (or past it when first seen), emits
 * `verifier_certificate.expiring` for the verifier (access) certificate in use or
 * `registration_certificate.expiring` for the registration certificate, once per certificate. The notice
 * is recorded on the certificate's row in the transaction that writes the event, by a conditional update
 * that only one worker can win, so restarts and several worker processes send it once.
 */
export async function notifyExpiringRelyingPartyCertificates(
  deps: Pick<AppDeps, "config" | "database">,
  options: { now?: Date; batch?: number } = {},
): Promise<{ accessCertificates: number; registrationCertificates: number }> {
  const now = options.now ?? new Date();
  const db = deps.database.root;
  const until = new Date(now.getTime() + deps.config.certificateExpiryNoticeDays * DAY_MS);
  let accessCertificates = 0;
  let registrationCertificates = 0;

  for (const row of await repo.allInUse(db)) {
    const leaf = leafOf(row.chainPem);
    if (!leaf || leaf.notAfter > until) continue;
    if (row.expiryNotifiedFor?.getTime() === leaf.notAfter.getTime()) continue;
    const scope = { tenantId: row.tenantId, environment: row.environment as Environment };
    const sent = await db.transaction(async (tx) => {
      if (!(await repo.markAccessExpiryNotified(tx, row.id, leaf.notAfter))) return false;
      await emitEvent(tx, scope, "verifier_certificate.expiring", {
        subject: leaf.subject,
        serialNumber: leaf.serialNumber,
        accessCertificate: leaf.organisationIdentifiers.length > 0,
        organisationIdentifiers: leaf.organisationIdentifiers,
        expiresAt: leaf.notAfter.toISOString(),
        daysLeft: daysLeft(leaf.notAfter, now),
      });
      return true;
    });
    if (sent) accessCertificates++;
  }

  for (const row of await repo.registrationsExpiringBy(db, until, options.batch ?? 100)) {
    const expiresAt = row.expiresAt!;
    const scope = { tenantId: row.tenantId, environment: row.environment as Environment };
    const registration = (row.registration ?? {}) as { name?: unknown; subjectIds?: unknown };
    const sent = await db.transaction(async (tx) => {
      if (!(await repo.markRegistrationExpiryNotified(tx, row.id, now))) return false;
      await emitEvent(tx, scope, "registration_certificate.expiring", {
        registrationCertificateId: row.id,
        relyingParty: typeof registration.name === "string" ? registration.name : null,
        relyingPartyIds: Array.isArray(registration.subjectIds) ? registration.subjectIds : [],
        expiresAt: expiresAt.toISOString(),
        daysLeft: daysLeft(expiresAt, now),
      });
      return true;
    });
    if (sent) registrationCertificates++;
  }
  return { accessCertificates, registrationCertificates };
}
