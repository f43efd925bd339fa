import {
  SUPPORTED_FORMAT,
  SUPPORTED_SIGNING_ALGORITHM,
  type TCreateCredentialConfigurationRequest,
  type TCredentialConfiguration,
} from "@cred/contracts/credential-configurations";
import { isUniqueViolation, type UnitOfWork } from "@cred/db";
import { findVisibleIssuer, type IssuerCaller, scopeOfCaller } from "../issuers";
import type { CoreConfig } from "../shared/context";
import { DomainError, type ErrorDetail } from "../shared/errors";
import { newId } from "../shared/ids";
import { emitEvent } from "../shared/outbox";
import { toCredentialConfigurationDto } from "./credential-configuration-dto";
import { credentialConfigurationRepository } from "./credential-configuration-repository";
import { defaultCredentialType } from "./default-credential-type";
import { claimsOfEveryVersion, pinnedTypeMetadata, typeMetadataOf } from "./type-metadata-document";
import { assertValidClaims } from "./validate-claims";

export const DEFAULT_LIFETIME_DAYS = 365;

function assertPlatformLimits(input: TCreateCredentialConfigurationRequest): void {
  const details: ErrorDetail[] = [];
  if (input.format != null && input.format !== SUPPORTED_FORMAT) {
    details.push({
      code: "UnsupportedFormat",
      target: "format",
      message: `Only '${SUPPORTED_FORMAT}' is supported.`,
    });
  }
  if (input.signingAlgorithm != null && input.signingAlgorithm !== SUPPORTED_SIGNING_ALGORITHM) {
    details.push({
      code: "UnsupportedSigningAlgorithm",
      target: "signingAlgorithm",
      message: `Only '${SUPPORTED_SIGNING_ALGORITHM}' is supported.`,
    });
  }
  if (details.length > 0) {
    throw new DomainError(
      "PlatformLimit",
      `The platform issues ${SUPPORTED_FORMAT} credentials signed with ${SUPPORTED_SIGNING_ALGORITHM} only; this cannot be overridden.`,
      details,
    );
  }
}

/** Only the platform serves (and so can fix) the Type Metadata of a configuration's default type. */
function assertPinnable(input: TCreateCredentialConfigurationRequest, defaultType: string): void {
  if (input.pinTypeMetadata && input.credentialType != null && input.credentialType !== defaultType) {
    throw new DomainError(
      "ValidationFailed",
      "Type Metadata can be pinned only for the default credentialType, whose document the platform serves.",
      [
        {
          code: "TypeMetadataNotServed",
          target: "pinTypeMetadata",
          message: `The document for '${input.credentialType}' is served wherever that type is defined; leave credentialType unset to pin.`,
        },
      ],
    );
  }
}

const duplicateIdentifier = (identifier: string) =>
  new DomainError(
    "AlreadyExists",
    `A credential configuration with identifier '${identifier}' already exists.`,
    [{ code: "Duplicate", target: "identifier", message: "Choose another identifier." }],
  );

/**
 * Creates a credential configuration in one transaction: the configuration (in the issuer's
 * environment), version 1 as active, the grant authorising the issuer, and the
 * `credential_configuration.created` event.
 */
export async function createCredentialConfiguration(
  deps: { db: UnitOfWork; config: CoreConfig },
  caller: IssuerCaller,
  input: TCreateCredentialConfigurationRequest,
): Promise<TCredentialConfiguration> {
  assertPlatformLimits(input);
  const claims = input.claims ?? [];
  assertValidClaims(claims);

  return deps.db.transaction(async (tx) => {
    const issuer = await findVisibleIssuer(tx, caller, input.issuerId);
    // The issuer was found in the caller's partition: the configuration takes its environment.
    const scope = scopeOfCaller(caller);
    if (await credentialConfigurationRepository.findByIdentifier(tx, scope, input.identifier)) {
      throw duplicateIdentifier(input.identifier);
    }
    const defaultType = defaultCredentialType(deps.config, issuer.id, input.identifier);
    assertPinnable(input, defaultType);
    const pinned = input.pinTypeMetadata
      ? pinnedTypeMetadata(
          typeMetadataOf({
            vct: defaultType,
            configurationName: input.displayName,
            issuerName: issuer.displayName,
            schemaId: input.schemaId,
            claims: claimsOfEveryVersion([claims]),
          }),
        )
      : null;
    const id = newId("ccf");
    const now = new Date();
    let created: Awaited<ReturnType<typeof credentialConfigurationRepository.create>>;
    try {
      created = await credentialConfigurationRepository.create(
        tx,
        {
          id,
          ...scope,
          issuerId: issuer.id,
          identifier: input.identifier,
          displayName: input.displayName,
          schemaId: input.schemaId,
          credentialType: input.credentialType ?? defaultType,
          format: SUPPORTED_FORMAT,
          signingAlgorithm: SUPPORTED_SIGNING_ALGORITHM,
          defaultLifetimeDays: input.defaultLifetimeDays ?? DEFAULT_LIFETIME_DAYS,
          holderBindingRequired: input.holderBindingRequired ?? true,
          statusEnabled: input.statusEnabled ?? true,
          activeVersion: 1,
          typeMetadataDocument: pinned?.text ?? null,
          typeMetadataIntegrity: pinned?.integrity ?? null,
        },
        {
          id: newId("ccv"),
          version: 1,
          status: "active",
          claims,
          reason: input.reason ?? null,
          activatedAt: now,
        },
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateIdentifier(input.identifier);
      throw error;
    }
    const dto = toCredentialConfigurationDto(created.configuration, created.versions);
    await emitEvent(tx, scope, "credential_configuration.created", {
      credentialConfigurationId: dto.id,
      identifier: dto.identifier,
      issuerId: dto.issuerId,
      credentialType: dto.credentialType,
      version: dto.activeVersion,
    });
    return dto;
  });
}
