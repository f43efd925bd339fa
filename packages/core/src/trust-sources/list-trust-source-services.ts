import { X509Certificate } from "node:crypto";
import type { TListTrustSourceServicesRequest, TTrustSourceService } from "@cred/contracts/trust-sources";
import type { UnitOfWork } from "@cred/db";
import { SERVICE_STATUS } from "@cred/oid4vc/trust-lists";
import { DomainError, notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { isCurrent } from "./stored-lists";
import { storedListsOf } from "./trust-source-dto";
import { trustSourceRepository as repo } from "./trust-source-repository";

/** The cursor is the position of the next service, wrapped so callers treat it as opaque. */
const encodePosition = (position: number) => Buffer.from(`svc:${position}`, "utf8").toString("base64url");

function decodePosition(cursor: string | undefined): number {
  if (!cursor) return 0;
  const match = /^svc:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) {
    throw new DomainError("ValidationFailed", "The cursor is not valid.", [
      { code: "InvalidCursor", target: "cursor", message: "Use the nextCursor of a previous page." },
    ]);
  }
  return Number(match[1]);
}

function certificateOf(base64Der: string): TTrustSourceService["certificates"][number] {
  try {
    const certificate = new X509Certificate(Buffer.from(base64Der, "base64"));
    return {
      subject: certificate.subject.split("\n").join(", "),
      notAfter: new Date(certificate.validTo).toISOString(),
    };
  } catch {
    // The list verified with it; a certificate that does not parse is shown, not hidden.
    return { subject: "(not an X.509 certificate)", notAfter: new Date(0).toISOString() };
  }
}

/**
 * The services of a trust source's last good copy, in list order (a LoTL's pointed-to lists after it),
 * optionally of one service type, paged by position.
 */
export async function listTrustSourceServices(
  db: UnitOfWork,
  scope: TenantScope,
  input: TListTrustSourceServicesRequest,
  at = new Date(),
): Promise<{ data: TTrustSourceService[]; nextCursor: string | null }> {
  const start = decodePosition(input.cursor);
  const row = await repo.findById(db, scope, input.trustSourceId);
  if (!row) throw notFound("The trust source");
  const services = storedListsOf(row).flatMap((list) => {
    const listCurrent = isCurrent(list, at);
    return list.providers.flatMap((provider) =>
      provider.services
        .filter((service) => input.serviceType === undefined || service.type === input.serviceType)
        .map((service) => ({ list, provider, service, listCurrent })),
    );
  });
  const page = services.slice(start, start + input.limit);
  const next = start + page.length;
  return {
    data: page.map(({ list, provider, service, listCurrent }) => ({
      list: list.location,
      territory: list.territory,
      provider: provider.name,
      serviceType: service.type,
      serviceName: service.name ?? null,
      status: service.status ?? null,
      statusStartingTime: service.since,
      certificates: service.certificates.map(certificateOf),
      history: service.history.map((state) => ({
        status: state.status ?? null,
        statusStartingTime: state.since,
      })),
      trusted:
        listCurrent &&
        (service.status === undefined || service.status === SERVICE_STATUS.granted) &&
        new Date(service.since).getTime() <= at.getTime(),
    })),
    nextCursor: next < services.length ? encodePosition(next) : null,
  };
}
