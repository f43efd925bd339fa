/**
 * Following a verified list of the lists (LoTL) to the lists it points to, and asking which certificates are
 * trust anchors for a service type at a time. Fetching is the caller's (no HTTP here).
 */
import { TrustListError } from "./errors";
import { verifyLoteJws } from "./lote-jws";
import {
  SERVICE_STATUS,
  type TrustList,
  type TrustListPointer,
  type TrustServiceState,
  type VerifiedTrustList,
} from "./model";
import { verifyTrustedListXml } from "./trusted-list-xml";

/** What a fetch of a pointed-to list returned: its body as text (XML, or a LoTE compact JWS). */
export type TrustListFetcher = (location: string, pointer: TrustListPointer) => Promise<string>;

export interface ResolvedPointer {
  pointer: TrustListPointer;
  /** The verified list, or why it was refused or could not be fetched (the other lists still count). */
  outcome: { ok: true; list: VerifiedTrustList } | { ok: false; error: TrustListError };
}

const XML_MIME = "application/vnd.etsi.tsl+xml";

function isXml(body: string, pointer: TrustListPointer): boolean {
  if (pointer.mimeType) return pointer.mimeType === XML_MIME;
  return body.trimStart().startsWith("<");
}

/**
 * Fetches and verifies every list a verified LoTL points to, each against its pointer's own signer
 * certificates (never the LoTL's signer). Pointers to further lists of lists are not followed (one level,
 * as in the EU LoTL). Pointers without signer certificates are refused (UnknownSigner).
 */
export async function resolveListOfTrustedLists(
  lotl: VerifiedTrustList,
  fetcher: TrustListFetcher,
  options: { at?: Date; include?: (pointer: TrustListPointer) => boolean } = {},
): Promise<ResolvedPointer[]> {
  const at = options.at ?? new Date();
  const pointers = lotl.schemeInformation.pointers.filter(options.include ?? (() => true));
  return Promise.all(
    pointers.map(async (pointer): Promise<ResolvedPointer> => {
      try {
        const body = await fetcher(pointer.location, pointer);
        const anchors = pointer.signerCertificates;
        const list = isXml(body, pointer)
          ? verifyTrustedListXml(body, { anchors, at })
          : await verifyLoteJws(body, { anchors, at });
        return { pointer, outcome: { ok: true, list } };
      } catch (error) {
        const refused =
          error instanceof TrustListError
            ? error
            : new TrustListError(
                "MalformedList",
                `fetching ${pointer.location} failed: ${(error as Error).message}`,
              );
        return { pointer, outcome: { ok: false, error: refused } };
      }
    }),
  );
}

/** The state of a service in effect at `at`: the current information or the history entry that held then. */
export function serviceStateAt(
  service: TrustServiceState & { history: TrustServiceState[] },
  at: Date,
): TrustServiceState | undefined {
  return [service, ...service.history]
    .filter((state) => state.statusStartingTime.getTime() <= at.getTime())
    .sort((a, b) => b.statusStartingTime.getTime() - a.statusStartingTime.getTime())[0];
}

export interface TrustAnchorQuery {
  serviceType: string;
  /** The time the service must have the status at; now by default. */
  at?: Date;
  /** Accepted statuses; granted by default. A service without a status (TS 119 602 PID lists) counts as listed. */
  statuses?: readonly string[];
}

export interface TrustAnchor {
  certificate: Uint8Array;
  providerName: string;
  serviceName?: string;
  serviceType: string;
  status?: string;
}

/** The certificates that are trust anchors for a service type with an accepted status at a time, across lists. */
export function findTrustAnchors(lists: readonly TrustList[], query: TrustAnchorQuery): TrustAnchor[] {
  const at = query.at ?? new Date();
  const statuses = query.statuses ?? [SERVICE_STATUS.granted];
  const anchors: TrustAnchor[] = [];
  for (const list of lists) {
    for (const provider of list.providers) {
      for (const service of provider.services) {
        const state = serviceStateAt(service, at);
        if (!state || state.serviceType !== query.serviceType) continue;
        if (state.status !== undefined && !statuses.includes(state.status)) continue;
        for (const certificate of state.certificates) {
          anchors.push({
            certificate,
            providerName: provider.name,
            ...(state.serviceName ? { serviceName: state.serviceName } : {}),
            serviceType: state.serviceType,
            ...(state.status ? { status: state.status } : {}),
          });
        }
      }
    }
  }
  return anchors;
}
