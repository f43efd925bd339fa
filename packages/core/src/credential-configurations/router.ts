import {
  ZActivateCredentialConfigurationVersionRequest,
  ZCreateCredentialConfigurationRequest,
  ZCreateCredentialConfigurationResponse,
  ZCreateCredentialConfigurationVersionRequest,
  ZCredentialConfigurationResponse,
  ZCredentialConfigurationVersionResponse,
  ZGetCredentialConfigurationRequest,
  ZGetCredentialConfigurationVersionRequest,
  ZListCredentialConfigurationsRequest,
  ZListCredentialConfigurationsResponse,
} from "@cred/contracts/credential-configurations";
import { issuerCallerOf } from "../issuers";
import { protectedProcedure, router } from "../rpc/trpc";
import {
  activateCredentialConfigurationVersion,
  createCredentialConfigurationVersion,
  getCredentialConfiguration,
  getCredentialConfigurationVersion,
} from "./configuration-versions";
import { createCredentialConfiguration } from "./create-credential-configuration";
import { listCredentialConfigurations } from "./list-credential-configurations";

const TAGS = ["Credential configurations"];
const BASE = "/management/credential-configurations";
const MANAGE = ["credential-configurations.manage", "issuers.manage"] as const;

export const credentialConfigurationsRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        operationId: "CredentialConfigurations_Create",
        summary: "Create a credential configuration",
        description:
          "In one call: creates the configuration (in the issuer's environment), activates its version 1 and authorises the issuer to use it. `format` is limited to dc+sd-jwt and `signingAlgorithm` to ES256 (400 PlatformLimit otherwise).",
        tags: TAGS,
        successDescription: "The configuration was created with version 1 active.",
      },
      scopes: [...MANAGE],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZCreateCredentialConfigurationRequest)
    .output(ZCreateCredentialConfigurationResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createCredentialConfiguration({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input),
    })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BASE,
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

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{configurationIdentifier}`,
        operationId: "CredentialConfigurations_Get",
        summary: "Get a credential configuration",
        description: "The configuration with its active version's claims and every version, oldest first.",
        tags: TAGS,
      },
      scopes: ["issuers.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetCredentialConfigurationRequest)
    .output(ZCredentialConfigurationResponse)
    .query(async ({ ctx, input }) => ({
      data: await getCredentialConfiguration(
        ctx.db,
        ctx.deps.caches,
        issuerCallerOf(ctx),
        input.configurationIdentifier,
      ),
    })),

  getVersion: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{configurationIdentifier}/versions/{version}`,
        operationId: "CredentialConfigurations_GetVersion",
        summary: "Get one version of a configuration, with its claims",
        description:
          "The claims schema of any version, active or superseded (transactions created under it are issued with it).",
        tags: TAGS,
      },
      scopes: ["issuers.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetCredentialConfigurationVersionRequest)
    .output(ZCredentialConfigurationVersionResponse)
    .query(async ({ ctx, input }) => ({
      data: await getCredentialConfigurationVersion(ctx.db, ctx.deps.caches, issuerCallerOf(ctx), input),
    })),

  createVersion: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{configurationIdentifier}/versions`,
        operationId: "CredentialConfigurations_CreateVersion",
        summary: "Create and activate a new version of a configuration's claims",
        description:
          "Adds the next version with the given claims schema and makes it the active one: issuer metadata, type metadata and transactions created from now on use it (other processes within 2 s). Transactions created earlier keep the version they were created with. At most 100 versions (409 InvalidState). A configuration whose Type Metadata is pinned refuses claims that would change that document (409 InvalidState, detail TypeMetadataPinned). Emits credential_configuration.version_activated. Accepts Idempotency-Key.",
        tags: TAGS,
        successDescription: "The version was created and is now the active one.",
      },
      scopes: [...MANAGE],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZCreateCredentialConfigurationVersionRequest)
    .output(ZCredentialConfigurationResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await createCredentialConfigurationVersion(
        ctx.db,
        ctx.deps.caches,
        issuerCallerOf(ctx),
        input,
      );
      return { data };
    }),

  activateVersion: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{configurationIdentifier}/versions/{version}/activate`,
        operationId: "CredentialConfigurations_ActivateVersion",
        summary: "Make an existing version the active one",
        description:
          "Rolls the configuration back (or forward) to one of its versions, for transactions created from now on. Activating the active version changes nothing. Emits credential_configuration.version_activated when the active version changes.",
        tags: TAGS,
      },
      scopes: [...MANAGE],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZActivateCredentialConfigurationVersionRequest)
    .output(ZCredentialConfigurationResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await activateCredentialConfigurationVersion(
        ctx.db,
        ctx.deps.caches,
        issuerCallerOf(ctx),
        input,
      );
      return { data };
    }),
});
