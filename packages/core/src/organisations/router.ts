import {
  ZCreateOrganisationRequest,
  ZGetOrganisationRequest,
  ZListOrganisationsRequest,
  ZOrganisationCollection,
  ZOrganisationResponse,
} from "@cred/contracts/organisations";
import { protectedProcedure, router } from "../rpc/trpc";
import { withIdempotency } from "../shared/idempotency";
import { scopeOf } from "../shared/scope-of";
import { createOrganisation, getOrganisation, listOrganisations } from "./organisations";

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
    .mutation(({ ctx, input }) =>
      withIdempotency(ctx, "Organisations_Create", input, async (db) => ({
        data: await createOrganisation(db, scopeOf(ctx), input),
      })),
    ),

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
