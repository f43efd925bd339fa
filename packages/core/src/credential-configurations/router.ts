import { issuerCallerOf } from "../issuers/issuer-caller";
import { withIdempotency } from "../shared/idempotency";
import { protectedProcedure, router } from "../trpc";
import { createCredentialConfiguration } from "./create-credential-configuration";
import {
  ZCreateCredentialConfigurationRequest,
  ZCreateCredentialConfigurationResponse,
  ZListCredentialConfigurationsRequest,
  ZListCredentialConfigurationsResponse,
} from "./credential-configuration.schema";
import { listCredentialConfigurations } from "./list-credential-configurations";

const TAGS = ["Credential configurations"];

export const credentialConfigurationsRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/credential-configurations",
        operationId: "CredentialConfigurations_Create",
        summary: "Create a credential configuration",
        description:
          "In one call: creates the configuration (in the issuer's environment), activates its version 1 and authorises the issuer to use it. `format` is limited to dc+sd-jwt and `signingAlgorithm` to ES256 (400 PlatformLimit otherwise).",
        tags: TAGS,
        successDescription: "The configuration was created with version 1 active.",
      },
      scopes: ["credential-configurations.manage", "issuers.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZCreateCredentialConfigurationRequest)
    .output(ZCreateCredentialConfigurationResponse)
    .mutation(({ ctx, input }) =>
      withIdempotency(ctx, "CredentialConfigurations_Create", input, async (db) => ({
        data: await createCredentialConfiguration({ ...ctx.deps, db }, issuerCallerOf(ctx), input),
      })),
    ),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/credential-configurations",
        operationId: "CredentialConfigurations_List",
        summary: "List credential configurations",
        description: "Configurations in creation order, optionally those an issuer may issue.",
        tags: TAGS,
      },
      scopes: ["issuers.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListCredentialConfigurationsRequest)
    .output(ZListCredentialConfigurationsResponse)
    .query(({ ctx, input }) => listCredentialConfigurations({ db: ctx.db }, issuerCallerOf(ctx), input)),
});
