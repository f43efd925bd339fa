import {
  ZAddRelyingPartyRegistrationCertificateRequest,
  ZCreateRelyingPartyRequest,
  ZListRelyingPartiesRequest,
  ZListRelyingPartiesResponse,
  ZListRelyingPartyRegistrationCertificatesRequest,
  ZRelyingPartyIdParams,
  ZRelyingPartyResponse,
  ZUpdateRelyingPartyRequest,
} from "@cred/contracts/relying-parties";
import {
  ZListVerifierRegistrationCertificatesResponse,
  ZVerifierRegistrationCertificateResponse,
} from "@cred/contracts/verifier-certificates";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import {
  createRelyingParty,
  deleteRelyingParty,
  getRelyingParty,
  listRelyingParties,
  updateRelyingParty,
} from "./manage-relying-parties";
import {
  addRegistrationCertificateOfRelyingParty,
  listRegistrationCertificatesOfRelyingParty,
} from "./registration-certificates";

const TAGS = ["Relying parties"];
const BASE = "/management/relying-parties";

/**
 * Platform extensions: the relying parties a tenant acts for as an intermediary (ARF Annex 2 RPI_*,
 * ETSI TS 119 475 `act`), each with its own identity and registration certificates
 * (docs/api/relying-party-certificates.md, "Intermediaries").
 */
export const relyingPartiesRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        operationId: "RelyingParties_Create",
        summary: "Create a relying party this tenant acts for as an intermediary",
        description:
          "Extension. A relying party behind this tenant (the intermediary, whose access certificate signs the requests): its name and identifiers, as its registration certificates name it in `sub`, and optional information URIs. Verification policies name it in `relyingPartyId`. Another relying party of the environment with one of the identifiers → 409 AlreadyExists. Accepts Idempotency-Key.",
        tags: TAGS,
        successDescription: "The relying party was created.",
      },
      scopes: ["verification-policies.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 429],
      idempotent: true,
    })
    .input(ZCreateRelyingPartyRequest)
    .output(ZRelyingPartyResponse)
    .mutation(async ({ ctx, input }) => ({ data: await createRelyingParty(ctx.db, scopeOf(ctx), input) })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BASE,
        operationId: "RelyingParties_List",
        summary: "List relying parties",
        tags: TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListRelyingPartiesRequest)
    .output(ZListRelyingPartiesResponse)
    .query(({ ctx, input }) => listRelyingParties(ctx.db, scopeOf(ctx), input)),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{relyingPartyId}`,
        operationId: "RelyingParties_Get",
        summary: "Get a relying party",
        tags: TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZRelyingPartyIdParams)
    .output(ZRelyingPartyResponse)
    .query(async ({ ctx, input }) => ({
      data: await getRelyingParty(ctx.db, scopeOf(ctx), input.relyingPartyId),
    })),

  update: protectedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: `${BASE}/{relyingPartyId}`,
        operationId: "RelyingParties_Update",
        summary: "Update a relying party (JSON merge patch)",
        description:
          "Extension. JSON merge patch (RFC 7396): absent members stay, null clears an optional one. New `identifiers` must be free in the environment (409 AlreadyExists) and still name the `sub` of each of its registration certificates (409 InvalidState, detail RegistrationCertificateMismatch).",
        tags: TAGS,
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZUpdateRelyingPartyRequest)
    .output(ZRelyingPartyResponse)
    .mutation(async ({ ctx, input }) => ({ data: await updateRelyingParty(ctx.db, scopeOf(ctx), input) })),

  delete: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${BASE}/{relyingPartyId}`,
        operationId: "RelyingParties_Delete",
        summary: "Delete a relying party",
        description:
          "Extension. Answers 200 with the relying party as it was; the registration certificates held for it are removed with it. 409 InvalidState (detail RelyingPartyInUse per policy) while the active version of a verification policy names it.",
        tags: TAGS,
        successDescription: "The relying party was deleted; the body shows it as it was.",
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZRelyingPartyIdParams)
    .output(ZRelyingPartyResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await deleteRelyingParty(ctx.db, scopeOf(ctx), input.relyingPartyId),
    })),

  addRegistrationCertificate: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{relyingPartyId}/registration-certificates`,
        operationId: "RelyingParties_AddRegistrationCertificate",
        summary: "Add a registration certificate of the relying party",
        description:
          "Extension. Checks the registration certificate as VerifierRegistrationCertificates_Add does (400 InvalidCertificate, 409 InvalidState without an access certificate) and that it is this relying party's as served by this intermediary: a `sub` identifier is one of the relying party's identifiers (else detail RelyingPartyMismatch) and `act.sub` is the access certificate's organizationIdentifier (else NotIntermediated); nothing is written otherwise. It gets an id (`vreg_…`) policies of this relying party name in `registrationCertificateIds`; remove it with VerifierRegistrationCertificates_Remove. Accepts Idempotency-Key.",
        tags: TAGS,
        successDescription: "The registration certificate was added for the relying party.",
      },
      scopes: ["verification-policies.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZAddRelyingPartyRegistrationCertificateRequest)
    .output(ZVerifierRegistrationCertificateResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await addRegistrationCertificateOfRelyingParty(ctx.deps, ctx.db, scopeOf(ctx), input),
    })),

  listRegistrationCertificates: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{relyingPartyId}/registration-certificates`,
        operationId: "RelyingParties_ListRegistrationCertificates",
        summary: "List the relying party's registration certificates",
        description: "Extension. Oldest first, with their expiry (`expiresAt`).",
        tags: TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZListRelyingPartyRegistrationCertificatesRequest)
    .output(ZListVerifierRegistrationCertificatesResponse)
    .query(({ ctx, input }) => listRegistrationCertificatesOfRelyingParty(ctx.deps, scopeOf(ctx), input)),
});
