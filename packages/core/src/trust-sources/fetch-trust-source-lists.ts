import {
  resolveListOfTrustedLists,
  TrustListError,
  type VerifiedTrustList,
  verifyLoteJws,
  verifyTrustedListXml,
} from "@cred/oid4vc/trust-lists";
import type { CoreConfig } from "../shared/context";
import { OutboundFetchError, outboundGet } from "../shared/outbound-fetch";
import { isCurrent, type RefreshError, type StoredList, toStoredList } from "./stored-lists";

/** National trusted lists run to a few MB; the EU LoTL to a few hundred KB. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

/** A refresh that failed as a whole: the source's list was refused or could not be fetched. */
export class RefreshFailure extends Error {
  constructor(readonly error: RefreshError) {
    super(`${error.code}: ${error.message}`);
    this.name = "RefreshFailure";
  }
}

type FetchConfig = Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">;

export interface TrustSourceSpec {
  kind: string;
  url: string;
  signerCertificates: readonly string[];
}

function fetchList(config: FetchConfig, url: string): Promise<string> {
  return outboundGet(config, url, {
    accept:
      "application/vnd.etsi.tsl+xml, application/xml, text/xml, application/jose, application/json;q=0.5",
    maxBytes: MAX_LIST_BYTES,
    timeoutMs: FETCH_TIMEOUT_MS,
  });
}

function asRefreshError(error: unknown): RefreshError {
  if (error instanceof RefreshFailure) return error.error;
  if (error instanceof TrustListError) return { code: error.code, message: error.message };
  if (error instanceof OutboundFetchError) return { code: "FetchFailed", message: error.message };
  throw error;
}

/** A new copy may not go back in sequence (TS 119 612 clause 5.3.2: TSLSequenceNumber increases). */
function requireSequence(next: StoredList, previous: StoredList | undefined): void {
  if (
    previous?.sequenceNumber != null &&
    next.sequenceNumber != null &&
    next.sequenceNumber < previous.sequenceNumber
  ) {
    throw new RefreshFailure({
      code: "SequenceNumberDecreased",
      message: `the list at ${next.location} has sequence number ${next.sequenceNumber}, below the ${previous.sequenceNumber} already seen`,
    });
  }
}

async function verify(
  kind: string,
  body: string,
  anchors: readonly string[],
  at: Date,
): Promise<VerifiedTrustList> {
  return kind === "lote"
    ? verifyLoteJws(body.trim(), { anchors, at })
    : verifyTrustedListXml(body, { anchors, at });
}

/**
 * Fetches a trust source's list through the outbound URL policy and verifies it against the source's
 * signer certificates; for a LoTL, also every list it points to, each against the pointer's own signer
 * certificates. A pointed-to list that fails keeps its previous good copy while that copy is current
 * (stale-while-valid) and carries the error; the others still count. Throws `RefreshFailure` when the
 * source's own list fails (FetchFailed, or a TrustListError code, or SequenceNumberDecreased).
 */
export async function fetchTrustSourceLists(
  config: FetchConfig,
  source: TrustSourceSpec,
  previous: readonly StoredList[],
  at: Date,
): Promise<StoredList[]> {
  let main: VerifiedTrustList;
  try {
    main = await verify(source.kind, await fetchList(config, source.url), source.signerCertificates, at);
  } catch (error) {
    throw new RefreshFailure(asRefreshError(error));
  }
  const stored = toStoredList(source.url, main);
  requireSequence(stored, previous[0]);
  if (source.kind !== "lotl") return [stored];

  const before = new Map(previous.slice(1).map((list) => [list.location, list]));
  const outcomes = await resolveListOfTrustedLists(main, (location) => fetchList(config, location), { at });
  const pointed = outcomes.map(({ pointer, outcome }): StoredList => {
    const old = before.get(pointer.location);
    let error: RefreshError;
    if (outcome.ok) {
      const list = toStoredList(pointer.location, outcome.list);
      try {
        requireSequence(list, old);
        return list;
      } catch (failure) {
        error = asRefreshError(failure);
      }
    } else {
      error = { code: outcome.error.code, message: outcome.error.message };
    }
    if (old && old.providers.length > 0 && isCurrent(old, at)) return { ...old, error };
    return {
      location: pointer.location,
      territory: pointer.territory ?? null,
      sequenceNumber: null,
      issuedAt: null,
      nextUpdate: null,
      providers: [],
      error,
    };
  });
  return [stored, ...pointed];
}
