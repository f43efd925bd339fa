import {
  ZCreateOrganisationRequest,
  ZGetOrganisationRequest,
  ZListOrganisationsRequest,
  ZOrganisationCollection,
  ZOrganisationResponse,
  ZUpdateOrganisationRequest,
} from "@cred/contracts/organisations";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { createOrganisation, getOrganisation, listOrganisations } from "./organisations";
import { assertNoReadOnlyOrganisationFields, updateOrganisation } from "./update-organisation";

const TAGS = ["Organisations"];

export const organisationsRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/organisations",
        operationId: "Organisations_Create",
        summary: "Create an organisation",
        tags: TAGS,
        successDescription: "The organisation was created.",
      },
      scopes: ["organisations.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 429],
      idempotent: true,
    })
    .input(ZCreateOrganisationRequest)
    .output(ZOrganisationResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createOrganisation(ctx.db, scopeOf(ctx), input),
    })),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/organisations/{organisationReference}",
        operationId: "Organisations_Get",
        summary: "Get an organisation by reference",
        tags: TAGS,
      },
      scopes: ["organisations.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetOrganisationRequest)
    .output(ZOrganisationResponse)
    .query(async ({ ctx, input }) => ({
      data: await getOrganisation(ctx.db, scopeOf(ctx), input.organisationReference),
    })),

  update: protectedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/management/organisations/{organisationReference}",
        operationId: "Organisations_Update",
        summary: "Update an organisation (JSON merge patch)",
        description:
          "JSON merge patch (RFC 7396) of the fields Organisations_Create accepts, validated the same way: members left out are unchanged, null clears legalName or country, `identifiers` is replaced as a whole (null or [] clears it). The reference is the path key and cannot change: naming it, or another read-only member (environment, timestamps), gives 400 ReadOnlyField. Issuers of the organisation keep pointing at it.",
        tags: TAGS,
      },
      scopes: ["organisations.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .use(async ({ getRawInput, next }) => {
      assertNoReadOnlyOrganisationFields(await getRawInput());
      return next();
    })
    .input(ZUpdateOrganisationRequest)
    .output(ZOrganisationResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await updateOrganisation(ctx.db, scopeOf(ctx), input),
    })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/organisations",
        operationId: "Organisations_List",
        summary: "List organisations",
        tags: TAGS,
      },
      scopes: ["organisations.read"],
    })
    .input(ZListOrganisationsRequest)
    .output(ZOrganisationCollection)
    .query(({ ctx, input }) => listOrganisations(ctx.db, scopeOf(ctx), input)),
});
