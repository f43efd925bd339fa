import {
  ZCreateTrustSourceRequest,
  ZCreateTrustSourceResponse,
  ZDeleteTrustSourceRequest,
  ZDeleteTrustSourceResponse,
  ZGetTrustSourceRequest,
  ZGetTrustSourceResponse,
  ZListTrustSourceRefreshesRequest,
  ZListTrustSourceRefreshesResponse,
  ZListTrustSourceServicesRequest,
  ZListTrustSourceServicesResponse,
  ZListTrustSourcesRequest,
  ZListTrustSourcesResponse,
  ZRefreshTrustSourceRequest,
  ZRefreshTrustSourceResponse,
  ZUpdateTrustSourceRequest,
  ZUpdateTrustSourceResponse,
} from "@cred/contracts/trust-sources";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { createTrustSource } from "./create-trust-source";
import { listTrustSourceServices } from "./list-trust-source-services";
import {
  assertNoReadOnlyTrustSourceFields,
  deleteTrustSource,
  getTrustSource,
  listTrustSources,
  updateTrustSource,
} from "./manage-trust-sources";
import { refreshTrustSource } from "./refresh-trust-source";
import { listTrustSourceRefreshes } from "./trust-source-refreshes";

const TAGS = ["Trust sources"];
const BASE = "/management/trust-sources";

export const trustSourcesRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        operationId: "TrustSources_Create",
        summary: "Create a trust source (a trusted list)",
        description:
          "Fetches the list once (https; the URL must not be, or resolve to, a private, loopback, link-local or metadata address: 400 TrustSourceUrlNotAllowed) and verifies it: XMLDSig for ETSI TS 119 612 lists (`lotl`, `tsl`), JWS for TS 119 602 LoTEs (`lote`), signed by one of `signerCertificates`; a LoTL's pointed-to lists are fetched and verified with the certificates the LoTL gives for them. A list that cannot be fetched or does not verify is refused with 422 TrustListRefused, whose detail code says why (BadSignature, UnknownSigner, ListExpired, WrongReference, UnsupportedAlgorithm, MalformedList, FetchFailed); nothing is stored then. Accepts Idempotency-Key.",
        tags: TAGS,
        successDescription: "The trust source was created with its first verified copy.",
      },
      scopes: ["trust-sources.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 422, 429],
      idempotent: true,
    })
    .input(ZCreateTrustSourceRequest)
    .output(ZCreateTrustSourceResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createTrustSource(ctx.db, scopeOf(ctx), ctx.deps, input),
    })),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{trustSourceId}`,
        operationId: "TrustSources_Get",
        summary: "Get a trust source, with the state of its lists",
        tags: TAGS,
      },
      scopes: ["trust-sources.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetTrustSourceRequest)
    .output(ZGetTrustSourceResponse)
    .query(async ({ ctx, input }) => ({
      data: await getTrustSource(ctx.db, scopeOf(ctx), input.trustSourceId),
    })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BASE,
        operationId: "TrustSources_List",
        summary: "List trust sources",
        tags: TAGS,
      },
      scopes: ["trust-sources.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListTrustSourcesRequest)
    .output(ZListTrustSourcesResponse)
    .query(({ ctx, input }) => listTrustSources(ctx.db, scopeOf(ctx), input)),

  listServices: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{trustSourceId}/services`,
        operationId: "TrustSources_ListServices",
        summary: "List the services of a trust source's last good copy",
        description:
          "The trust services the verified lists name (a LoTL's pointed-to lists after it), in list order, with their service type, name, status, certificates and history, and whether each counts as a trust anchor now. `serviceType` keeps only services of that type. Empty while no copy has verified (status `pending`).",
        tags: TAGS,
      },
      scopes: ["trust-sources.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZListTrustSourceServicesRequest)
    .output(ZListTrustSourceServicesResponse)
    .query(({ ctx, input }) => listTrustSourceServices(ctx.db, scopeOf(ctx), input)),

  listRefreshes: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{trustSourceId}/refreshes`,
        operationId: "TrustSources_ListRefreshes",
        summary: "List a trust source's refresh attempts",
        description:
          "The recorded refresh attempts, newest first: the first fetch at TrustSources_Create, TrustSources_Refresh and the worker's scheduled refreshes, each with its outcome (`ok`, `failed` when the list could not be fetched, `refused` when it did not verify), the reason code, the sequence number, issue date and NextUpdate of the copy in use after it, its number of services and whether an earlier good copy was kept. The newest 50 per trust source are kept.",
        tags: TAGS,
      },
      scopes: ["trust-sources.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZListTrustSourceRefreshesRequest)
    .output(ZListTrustSourceRefreshesResponse)
    .query(({ ctx, input }) => listTrustSourceRefreshes(ctx.db, scopeOf(ctx), input)),

  update: protectedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: `${BASE}/{trustSourceId}`,
        operationId: "TrustSources_Update",
        summary: "Update a trust source (JSON merge patch)",
        description:
          "JSON merge patch (RFC 7396) of signerCertificates, refreshIntervalSeconds and description (null clears it). New signer certificates apply from the next refresh on. kind and url are fixed (400 ReadOnlyField): another list is another trust source.",
        tags: TAGS,
      },
      scopes: ["trust-sources.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .use(async ({ getRawInput, next }) => {
      assertNoReadOnlyTrustSourceFields(await getRawInput());
      return next();
    })
    .input(ZUpdateTrustSourceRequest)
    .output(ZUpdateTrustSourceResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await updateTrustSource(ctx.db, scopeOf(ctx), input),
    })),

  delete: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${BASE}/{trustSourceId}`,
        operationId: "TrustSources_Delete",
        summary: "Delete a trust source",
        description:
          "Answers 200 with the trust source as it was. From now on it reads as 404 and policies naming it trust no issuer through it.",
        tags: TAGS,
        successDescription: "The trust source was deleted; the body shows it as it was.",
      },
      scopes: ["trust-sources.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZDeleteTrustSourceRequest)
    .output(ZDeleteTrustSourceResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await deleteTrustSource(ctx.db, scopeOf(ctx), input.trustSourceId),
    })),

  refresh: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{trustSourceId}/refresh`,
        operationId: "TrustSources_Refresh",
        summary: "Fetch and verify a trust source's lists now",
        description:
          "Runs the refresh the worker otherwise runs on schedule (the refresh interval, or sooner at a list's NextUpdate). When the list cannot be fetched or does not verify, the last good copy is kept (status `stale` while its NextUpdate has not passed, `expired` after), the failure is recorded in `lastError`, a `trust_source.refresh_failed` event is emitted and the call answers 422 TrustListRefused with the reason as detail code.",
        tags: TAGS,
        successDescription: "The lists verified; the body shows the new copy.",
      },
      scopes: ["trust-sources.manage"],
      errorStatuses: [400, 401, 403, 404, 422, 429],
    })
    .input(ZRefreshTrustSourceRequest)
    .output(ZRefreshTrustSourceResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await refreshTrustSource(ctx.db, scopeOf(ctx), ctx.deps, input.trustSourceId),
    })),
});
