import {
  MAX_CONFIGURATION_VERSIONS,
  type TClaimDefinition,
  type TCreateCredentialConfigurationVersionRequest,
  type TCredentialConfiguration,
} from "@cred/contracts/credential-configurations";
import type { UnitOfWork } from "@cred/db";
import { type IssuerCaller, scopeOfCaller } from "../issuers";
import type { Caches } from "../shared/caches";
import { DomainError, notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import { emitEvent } from "../shared/outbox";
import { configurationCatalog } from "./configuration-catalog";
import { toCredentialConfigurationDto } from "./credential-configuration-dto";
import {
  type CredentialConfigurationRow,
  credentialConfigurationRepository as repo,
} from "./credential-configuration-repository";
import { versionsAgreeWithPinned } from "./type-metadata-document";
import { assertValidClaims } from "./validate-claims";

/**
 * The configuration, when it is in the caller's partition and, for an issuer-client key, granted to
 * that key's issuer; otherwise 404.
 */
export async function findVisibleConfiguration(
  db: UnitOfWork,
  caches: Caches,
  caller: IssuerCaller,
  identifier: string,
): Promise<CredentialConfigurationRow> {
  const row = await repo.findByIdentifier(db, scopeOfCaller(caller), identifier);
  const visible =
    row !== null &&
    (caller.boundIssuerId === null ||
      (await configurationCatalog.isGranted(db, caches, caller.boundIssuerId, row.id)));
  if (!visible) throw notFound("The credential configuration");
  return row;
}

export async function getCredentialConfiguration(
  db: UnitOfWork,
  caches: Caches,
  caller: IssuerCaller,
  identifier: string,
): Promise<TCredentialConfiguration> {
  const row = await findVisibleConfiguration(db, caches, caller, identifier);
  return toCredentialConfigurationDto(row, await repo.versionsOfOne(db, row.id));
}

const unknownVersion = (version: number) => notFound(`Version ${version} of the credential configuration`);

/** One version of a visible configuration, with its claims; 404 for a version it does not have. */
export async function getCredentialConfigurationVersion(
  db: UnitOfWork,
  caches: Caches,
  caller: IssuerCaller,
  input: { configurationIdentifier: string; version: number },
) {
  const row = await findVisibleConfiguration(db, caches, caller, input.configurationIdentifier);
  const versions = toCredentialConfigurationDto(row, await repo.versionsOfOne(db, row.id)).versions;
  const version = versions.find((v) => v.version === input.version);
  const claims = await configurationCatalog.claims(db, caches, row.id, input.version);
  if (!version || !claims) throw unknownVersion(input.version);
  return { ...version, claims };
}

/**
 * One transaction, under the configuration's row lock: the version change, and the
 * `credential_configuration.version_activated` event when the active version changed. Transactions
 * already created keep the version they were created with; new ones take the active version (in this
 * process once committed (`credentialConfigurationRepository.activate`), in others within the catalogue's row TTL).
 */
async function changeVersions(
  db: UnitOfWork,
  caches: Caches,
  caller: IssuerCaller,
  identifier: string,
  change: (tx: UnitOfWork, row: CredentialConfigurationRow, now: Date) => Promise<number>,
): Promise<TCredentialConfiguration> {
  return db.transaction(async (tx) => {
    const found = await findVisibleConfiguration(tx, caches, caller, identifier);
    // Read again under the lock: the active version may have changed meanwhile.
    const locked = await repo.lockForUpdate(tx, found.id);
    const previousVersion = locked.activeVersion;
    const now = new Date();
    const version = await change(tx, locked, now);
    let row = locked;
    if (version !== previousVersion) {
      row = await repo.activate(tx, caches, locked.id, version, now);
      await emitEvent(tx, scopeOfCaller(caller), "credential_configuration.version_activated", {
        credentialConfigurationId: locked.id,
        identifier: locked.identifier,
        issuerId: locked.issuerId,
        credentialType: locked.credentialType,
        version,
        previousVersion,
      });
    }
    return toCredentialConfigurationDto(row, await repo.versionsOfOne(tx, row.id));
  });
}

/** A new version with its own claims schema, active at once. */
export function createCredentialConfigurationVersion(
  db: UnitOfWork,
  caches: Caches,
  caller: IssuerCaller,
  input: TCreateCredentialConfigurationVersionRequest,
): Promise<TCredentialConfiguration> {
  assertValidClaims(input.claims);
  return changeVersions(db, caches, caller, input.configurationIdentifier, async (tx, row, now) => {
    const versions = await repo.versionsOfOne(tx, row.id);
    if (versions.length >= MAX_CONFIGURATION_VERSIONS) {
      throw new DomainError(
        "InvalidState",
        `The configuration has ${MAX_CONFIGURATION_VERSIONS} versions, the most it may have; activate one of them or create another configuration.`,
        [
          {
            code: "VersionLimit",
            target: "configurationIdentifier",
            message: "No more versions can be added.",
          },
        ],
      );
    }
    if (
      row.typeMetadataDocument !== null &&
      // The new version first, as it becomes the active one (its labels lead the merge).
      !versionsAgreeWithPinned(row.typeMetadataDocument, [
        input.claims,
        ...versions.map((v) => v.claims as TClaimDefinition[]).reverse(),
      ])
    ) {
      throw new DomainError(
        "InvalidState",
        "The configuration's Type Metadata is pinned (its credentials carry vct#integrity): a version may change claim types and constraints, but not which claims there are, their labels, whether they are required or whether they are selectively disclosable. Create another configuration for the changed type.",
        [
          {
            code: "TypeMetadataPinned",
            target: "claims",
            message: "These claims would change the pinned Type Metadata document.",
          },
        ],
      );
    }
    const version = Math.max(...versions.map((v) => v.version)) + 1;
    await repo.addVersion(tx, {
      id: newId("ccv"),
      configurationId: row.id,
      version,
      status: "superseded", // until `activate` makes it the active one
      claims: input.claims,
      reason: input.reason ?? null,
      createdAt: now,
    });
    return version;
  });
}

/**
 * Makes an existing version the active one again (a rollback, or forward again after one). Activating
 * the version that is already active changes nothing and emits nothing.
 */
export function activateCredentialConfigurationVersion(
  db: UnitOfWork,
  caches: Caches,
  caller: IssuerCaller,
  input: { configurationIdentifier: string; version: number },
): Promise<TCredentialConfiguration> {
  return changeVersions(db, caches, caller, input.configurationIdentifier, async (tx, row) => {
    const versions = await repo.versionsOfOne(tx, row.id);
    if (!versions.some((v) => v.version === input.version)) {
      throw unknownVersion(input.version);
    }
    return input.version;
  });
}
