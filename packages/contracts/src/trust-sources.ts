import { z } from "zod";
import { EXAMPLE_CA_CERTIFICATE_PEM } from "./examples";
import { collectionOf, newestFirstCollectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";
import { hasOnePemCertificateBlock } from "./server-checks";

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";
const TRUST_SOURCE_ID_EXAMPLE = "ts_01jd5x6c3v8w9y0z1a2b3c4d5e";

export const TRUST_SOURCE_KINDS = ["lotl", "tsl", "lote"] as const;
export type TTrustSourceKind = (typeof TRUST_SOURCE_KINDS)[number];

/** Between a minute and a week; NextUpdate of the lists makes a refresh come earlier. */
export const MIN_REFRESH_INTERVAL_SECONDS = 60;
export const MAX_REFRESH_INTERVAL_SECONDS = 7 * 86_400;
export const DEFAULT_REFRESH_INTERVAL_SECONDS = 6 * 3600;

const zTrustSourceId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The trust source's id.", example: TRUST_SOURCE_ID_EXAMPLE });

const zKind = z.enum(TRUST_SOURCE_KINDS).meta({
  description:
    "`lotl`: an ETSI TS 119 612 list of trusted lists (XML), whose pointed-to lists are followed and verified with the signer certificates the LoTL gives for them; `tsl`: one TS 119 612 trusted list (XML); `lote`: a TS 119 602 list of trusted entities (compact JWS with the signer in `x5c`).",
  example: "lotl",
});

const zSignerCertificate = z
  .string()
  .max(20_000)
  .refine(hasOnePemCertificateBlock, "Give one PEM-encoded X.509 certificate.")
  .meta({
    description: "PEM X.509 certificate that may sign the list (matched by certificate or public key).",
  });

const zSignerCertificates = z.array(zSignerCertificate).min(1).max(20).meta({
  description:
    "The certificates that anchor the list: its signature must verify with one of them (for a LoTL, the LoTL's own signer; the national lists are checked against the certificates the LoTL points with).",
});

const zRefreshIntervalSeconds = z
  .int()
  .min(MIN_REFRESH_INTERVAL_SECONDS)
  .max(MAX_REFRESH_INTERVAL_SECONDS)
  .meta({
    description:
      "How often the list is fetched again (seconds); the refresh comes earlier when a list's NextUpdate is sooner. A failed refresh is retried after a tenth of it (at least a minute).",
    example: DEFAULT_REFRESH_INTERVAL_SECONDS,
  });

const zRefreshError = z
  .object({
    code: z.string().meta({
      description:
        "Why the last refresh failed: BadSignature, UnknownSigner, ListExpired, WrongReference, UnsupportedAlgorithm, MalformedList, SequenceNumberDecreased or FetchFailed.",
      example: "BadSignature",
    }),
    message: z
      .string()
      .meta({ description: "What failed, in words.", example: "the signature does not verify" }),
  })
  .meta({ id: "TrustSourceRefreshError" });

export const zTrustSourceList = z
  .object({
    location: z
      .string()
      .meta({ description: "Where the list was fetched from.", example: "https://tl.example/de.xml" }),
    territory: z.string().nullable().meta({ description: "SchemeTerritory of the list.", example: "DE" }),
    sequenceNumber: z
      .int()
      .nullable()
      .meta({ description: "TSLSequenceNumber / LoTE sequence number.", example: 42 }),
    issuedAt: z
      .string()
      .nullable()
      .meta({ description: "ListIssueDateTime (ISO 8601).", example: ISO_EXAMPLE }),
    nextUpdate: z.string().nullable().meta({ description: "NextUpdate (ISO 8601).", example: ISO_EXAMPLE }),
    services: z
      .int()
      .meta({ description: "How many services (with their history) the list holds.", example: 12 }),
    error: zRefreshError.nullable().meta({
      description:
        "For a list a LoTL points to: why its last fetch was refused (its last good copy, if any and still current, is kept).",
    }),
  })
  .meta({ id: "TrustSourceList", description: "One list of the last good copy." });

export const zTrustSource = z
  .object({
    id: zTrustSourceId,
    kind: zKind,
    url: z.string().meta({
      description: "Where the list is fetched from.",
      example: "https://ec.europa.eu/tools/lotl/eu-lotl.xml",
    }),
    description: z.string().nullable().meta({ description: "Free text.", example: "EU LoTL" }),
    signerCertificates: z.array(z.string()).meta({ description: "PEM certificates that anchor the list." }),
    refreshIntervalSeconds: z.int().meta({ description: "Refresh interval (seconds).", example: 21_600 }),
    status: z.enum(["pending", "current", "stale", "expired"]).meta({
      description:
        "`current`: the last refresh verified the list; `stale`: the last refresh failed and the last good copy, still before its NextUpdate, is used (stale-while-valid); `expired`: the last good copy has passed its NextUpdate and trusts nothing until a refresh succeeds; `pending`: no copy has verified yet.",
      example: "current",
    }),
    lists: z
      .array(zTrustSourceList)
      .meta({ description: "The lists of the last good copy (a LoTL first, then the lists it points to)." }),
    listsFetchedAt: z
      .string()
      .nullable()
      .meta({ description: "When the last good copy was fetched.", example: ISO_EXAMPLE }),
    nextUpdate: z
      .string()
      .nullable()
      .meta({ description: "The earliest NextUpdate of the last good copy.", example: ISO_EXAMPLE }),
    lastRefreshAt: z
      .string()
      .nullable()
      .meta({ description: "When a refresh last ran.", example: ISO_EXAMPLE }),
    lastError: zRefreshError
      .nullable()
      .meta({ description: "Why the last refresh failed; null when it succeeded." }),
    nextRefreshAt: z
      .string()
      .meta({ description: "When the next scheduled refresh is due.", example: ISO_EXAMPLE }),
    createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
    updatedAt: z.string().meta({ description: "Last change (ISO 8601).", example: ISO_EXAMPLE }),
  })
  .meta({
    id: "TrustSource",
    description:
      "A trusted list (ETSI TS 119 612 / TS 119 602) that issuers or wallet providers are trusted through.",
  });
export type TTrustSource = z.infer<typeof zTrustSource>;

export const ZCreateTrustSourceRequest = z.strictObject({
  kind: zKind,
  url: z.url({ error: "Give an absolute URL." }).max(2048).meta({
    description:
      "https URL of the list. Hosts that are or resolve to private, loopback, link-local or metadata addresses are refused.",
    example: "https://ec.europa.eu/tools/lotl/eu-lotl.xml",
  }),
  signerCertificates: zSignerCertificates,
  refreshIntervalSeconds: zRefreshIntervalSeconds.optional(),
  description: z.string().trim().max(500).nullish().meta({ description: "Free text.", example: "EU LoTL" }),
});
// A list at example.com cannot be fetched: tried as it stands, the example answers 422 TrustListRefused.
registerRequestExample(ZCreateTrustSourceRequest, [], {
  kind: "lotl",
  url: "https://example.com/trusted-lists/eu-lotl.xml",
  signerCertificates: [EXAMPLE_CA_CERTIFICATE_PEM],
  refreshIntervalSeconds: DEFAULT_REFRESH_INTERVAL_SECONDS,
  description: "EU list of trusted lists",
});
export type TCreateTrustSourceRequest = z.infer<typeof ZCreateTrustSourceRequest>;

export const ZTrustSourceIdParams = z.object({ trustSourceId: zTrustSourceId });
export const ZGetTrustSourceRequest = ZTrustSourceIdParams;
export const ZDeleteTrustSourceRequest = ZTrustSourceIdParams;
export const ZRefreshTrustSourceRequest = ZTrustSourceIdParams;
export const ZTrustSourceResponse = resourceOf(zTrustSource).meta({ id: "ManagementResourceOfTrustSource" });
export const ZCreateTrustSourceResponse = ZTrustSourceResponse;
export const ZGetTrustSourceResponse = ZTrustSourceResponse;
export const ZDeleteTrustSourceResponse = ZTrustSourceResponse;
export const ZRefreshTrustSourceResponse = ZTrustSourceResponse;
export const ZUpdateTrustSourceResponse = ZTrustSourceResponse;
export const ZListTrustSourcesRequest = zListQuery;
export const ZListTrustSourcesResponse = collectionOf(zTrustSource).meta({
  id: "ManagementCollectionOfTrustSource",
});

/** TrustSources_Update: JSON merge patch (absent = unchanged, null = cleared); kind and url are fixed. */
export const ZUpdateTrustSourceRequest = z.strictObject({
  trustSourceId: zTrustSourceId,
  signerCertificates: zSignerCertificates.optional(),
  refreshIntervalSeconds: zRefreshIntervalSeconds.optional(),
  description: z.string().trim().max(500).nullish().meta({ description: "Free text; null clears it." }),
});
export type TUpdateTrustSourceRequest = z.infer<typeof ZUpdateTrustSourceRequest>;
registerRequestExample(ZUpdateTrustSourceRequest, ["trustSourceId"], { refreshIntervalSeconds: 3600 });

/** Members TrustSources_Update refuses by name (400 ReadOnlyField): a new URL or kind is a new source. */
export const TRUST_SOURCE_READ_ONLY_FIELDS = [
  "id",
  "kind",
  "url",
  "status",
  "lists",
  "listsFetchedAt",
  "nextUpdate",
  "lastRefreshAt",
  "lastError",
  "nextRefreshAt",
  "createdAt",
  "updatedAt",
] as const;

/** TrustSources_ListServices: the services of the last good copy, in list order; filter by service type. */
export const ZListTrustSourceServicesRequest = zListQuery.extend({
  trustSourceId: zTrustSourceId,
  serviceType: z.string().min(1).max(512).optional().meta({
    description: "Only services of this ETSI service type (ServiceTypeIdentifier URI), compared exactly.",
    example: "http://uri.etsi.org/TrstSvc/Svctype/CA/QC",
  }),
});
export type TListTrustSourceServicesRequest = z.infer<typeof ZListTrustSourceServicesRequest>;

const zServiceStatus = z.string().nullable().meta({
  description:
    "The service status URI (e.g. `http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted`); null when the list profile has none (TS 119 602).",
  example: "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted",
});

export const zTrustSourceService = z
  .object({
    list: z.string().meta({
      description:
        "Location of the list that names the service (a LoTL's pointed-to list, or the list itself).",
      example: "https://tl.example/de.xml",
    }),
    territory: z.string().nullable().meta({ description: "SchemeTerritory of that list.", example: "DE" }),
    provider: z.string().meta({ description: "The trust service provider's name.", example: "Test TSP" }),
    serviceType: z.string().meta({
      description: "ServiceTypeIdentifier: what policies and issuers name with `serviceType`.",
      example: "http://uri.etsi.org/TrstSvc/Svctype/CA/QC",
    }),
    serviceName: z.string().nullable().meta({ description: "The service's name.", example: "PID CA" }),
    status: zServiceStatus,
    statusStartingTime: z
      .string()
      .meta({ description: "When the current status began (ISO 8601).", example: ISO_EXAMPLE }),
    certificates: z
      .array(
        z.object({
          subject: z.string().meta({ description: "Subject DN, comma-separated.", example: "CN=PID CA" }),
          notAfter: z.string().meta({ description: "End of validity (ISO 8601).", example: ISO_EXAMPLE }),
        }),
      )
      .meta({ description: "The service digital identities (X.509 certificates)." }),
    history: z
      .array(
        z.object({
          status: zServiceStatus,
          statusStartingTime: z.string().meta({ description: "When that status began (ISO 8601)." }),
        }),
      )
      .meta({ description: "Earlier states, as the list gives them." }),
    trusted: z.boolean().meta({
      description:
        "Whether the service's certificates count as trust anchors now: its list's NextUpdate has not passed and its status is granted (or the profile has none) and has begun.",
      example: true,
    }),
  })
  .meta({ id: "TrustSourceService", description: "One service of a trust source's last good copy." });
export type TTrustSourceService = z.infer<typeof zTrustSourceService>;

export const ZListTrustSourceServicesResponse = collectionOf(zTrustSourceService).meta({
  id: "ManagementCollectionOfTrustSourceService",
});

/** How many refresh attempts are kept per trust source (older ones are deleted as new ones are recorded). */
export const TRUST_SOURCE_REFRESHES_KEPT = 50;

export const TRUST_SOURCE_REFRESH_TRIGGERS = ["create", "manual", "schedule"] as const;
export const TRUST_SOURCE_REFRESH_OUTCOMES = ["ok", "failed", "refused"] as const;

/** TrustSources_ListRefreshes: the recorded refresh attempts of a trust source, newest first. */
export const ZListTrustSourceRefreshesRequest = zListQuery.extend({ trustSourceId: zTrustSourceId });
export type TListTrustSourceRefreshesRequest = z.infer<typeof ZListTrustSourceRefreshesRequest>;

export const zTrustSourceRefresh = z
  .object({
    id: z.string().meta({ description: "The attempt's id.", example: "tsr_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    attemptedAt: z.string().meta({ description: "When the attempt ran (ISO 8601).", example: ISO_EXAMPLE }),
    trigger: z.enum(TRUST_SOURCE_REFRESH_TRIGGERS).meta({
      description:
        "`create`: the first fetch at TrustSources_Create; `manual`: TrustSources_Refresh; `schedule`: the worker's scheduled refresh.",
      example: "schedule",
    }),
    outcome: z.enum(TRUST_SOURCE_REFRESH_OUTCOMES).meta({
      description:
        "`ok`: the list verified and replaced the copy in use; `failed`: the list could not be fetched (FetchFailed); `refused`: it was fetched but did not verify or went back in sequence.",
      example: "ok",
    }),
    reason: zRefreshError.nullable().meta({ description: "Why it failed or was refused; null when ok." }),
    sequenceNumber: z.int().nullable().meta({
      description:
        "TSLSequenceNumber / LoTE sequence number of the source's own list in the copy in use after the attempt (the new copy when ok, the kept one otherwise); null when there is none.",
      example: 42,
    }),
    issuedAt: z.string().nullable().meta({
      description: "ListIssueDateTime of that list (ISO 8601).",
      example: ISO_EXAMPLE,
    }),
    nextUpdate: z.string().nullable().meta({
      description: "The earliest NextUpdate of the copy in use after the attempt (ISO 8601).",
      example: ISO_EXAMPLE,
    }),
    services: z.int().meta({
      description: "How many services the copy in use after the attempt holds, across its lists.",
      example: 12,
    }),
    lastGoodCopyKept: z.boolean().meta({
      description:
        "Whether the attempt failed or was refused while an earlier good copy existed, which stayed in use (stale while its NextUpdate has not passed).",
      example: false,
    }),
    failedLists: z
      .array(
        z.object({
          location: z
            .string()
            .meta({ description: "The pointed-to list.", example: "https://tl.example/de.xml" }),
          code: z.string().meta({ description: "Why it was refused.", example: "BadSignature" }),
          message: z.string().meta({ description: "What failed, in words." }),
        }),
      )
      .meta({
        description:
          "For a LoTL: the lists it points to that failed in this attempt (each keeps its own last good copy while that is current); empty otherwise.",
      }),
  })
  .meta({ id: "TrustSourceRefresh", description: "One recorded refresh attempt of a trust source." });
export type TTrustSourceRefresh = z.infer<typeof zTrustSourceRefresh>;

export const ZListTrustSourceRefreshesResponse = newestFirstCollectionOf(
  zTrustSourceRefresh,
  "This page's refresh attempts, newest first.",
).meta({ id: "ManagementCollectionOfTrustSourceRefresh" });
