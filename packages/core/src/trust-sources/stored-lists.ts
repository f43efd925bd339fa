import {
  findTrustAnchors,
  type TrustList,
  type TrustService,
  type TrustServiceState,
  type VerifiedTrustList,
} from "@cred/oid4vc/trust-lists";

/** Why a refresh (or one list of a LoTL) failed, as stored and shown. */
export interface RefreshError {
  code: string;
  message: string;
}

interface StoredState {
  type: string;
  name?: string;
  status?: string;
  /** StatusStartingTime, ISO 8601. */
  since: string;
  /** Service digital identities, base64 DER. */
  certificates: string[];
}

interface StoredService extends StoredState {
  history: StoredState[];
}

/** One verified list of a trust source's last good copy, as the `lists` column holds it (JSON). */
export interface StoredList {
  location: string;
  territory: string | null;
  sequenceNumber: number | null;
  issuedAt: string | null;
  nextUpdate: string | null;
  providers: { name: string; services: StoredService[] }[];
  /** For a list a LoTL points to: why its last fetch failed (the providers are the previous good copy, if any). */
  error: RefreshError | null;
}

const base64 = (der: Uint8Array) => Buffer.from(der).toString("base64");

function storeState(state: TrustServiceState): StoredState {
  return {
    type: state.serviceType,
    ...(state.serviceName ? { name: state.serviceName } : {}),
    ...(state.status ? { status: state.status } : {}),
    since: state.statusStartingTime.toISOString(),
    certificates: state.certificates.map(base64),
  };
}

/** A verified list as stored (dates ISO, certificates base64 DER). */
export function toStoredList(location: string, list: VerifiedTrustList): StoredList {
  const scheme = list.schemeInformation;
  return {
    location,
    territory: scheme.territory ?? null,
    sequenceNumber: scheme.sequenceNumber ?? null,
    issuedAt: scheme.issueDateTime.toISOString(),
    nextUpdate: scheme.nextUpdate?.toISOString() ?? null,
    providers: list.providers.map((provider) => ({
      name: provider.name,
      services: provider.services.map((service) => ({
        ...storeState(service),
        history: service.history.map(storeState),
      })),
    })),
    error: null,
  };
}

function loadState(state: StoredState): TrustServiceState {
  return {
    serviceType: state.type,
    ...(state.name ? { serviceName: state.name } : {}),
    ...(state.status ? { status: state.status } : {}),
    statusStartingTime: new Date(state.since),
    certificates: state.certificates.map((der) => Buffer.from(der, "base64")),
  };
}

function toTrustList(stored: StoredList): TrustList {
  return {
    format: "etsi-ts-119-612-xml",
    schemeInformation: {
      issueDateTime: new Date(stored.issuedAt ?? 0),
      ...(stored.nextUpdate ? { nextUpdate: new Date(stored.nextUpdate) } : {}),
      pointers: [],
    },
    providers: stored.providers.map((provider) => ({
      name: provider.name,
      services: provider.services.map(
        (service): TrustService => ({ ...loadState(service), history: service.history.map(loadState) }),
      ),
    })),
  };
}

/** Whether a stored list may still be relied on at `at`: it has a NextUpdate and that has not passed. */
export function isCurrent(list: Pick<StoredList, "nextUpdate">, at: Date): boolean {
  return list.nextUpdate !== null && new Date(list.nextUpdate).getTime() > at.getTime();
}

/** The earliest NextUpdate of the stored lists (when the copy stops being current), or null when none has one. */
export function earliestNextUpdate(lists: readonly StoredList[]): Date | null {
  const times = lists.flatMap((list) => (list.nextUpdate ? [new Date(list.nextUpdate).getTime()] : []));
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}

export function serviceCount(list: StoredList): number {
  return list.providers.reduce((n, provider) => n + provider.services.length, 0);
}

/**
 * The certificates (PEM) of services of `serviceType` with status granted (or, in a TS 119 602 list, no
 * status) in effect at `at`, across the stored lists whose NextUpdate has not passed: an expired copy
 * trusts nothing.
 */
export function anchorCertificatesOf(lists: readonly StoredList[], serviceType: string, at: Date): string[] {
  const current = lists.filter((list) => isCurrent(list, at)).map(toTrustList);
  const pems = findTrustAnchors(current, { serviceType, at }).map(
    (anchor) =>
      `-----BEGIN CERTIFICATE-----\n${base64(anchor.certificate)
        .match(/.{1,64}/g)
        ?.join("\n")}\n-----END CERTIFICATE-----\n`,
  );
  return [...new Set(pems)];
}
