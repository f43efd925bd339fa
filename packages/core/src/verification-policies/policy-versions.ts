import {
  MAX_POLICY_VERSIONS,
  type TCreateVerificationPolicyVersionRequest,
  type TPolicyRules,
  type TVerificationPolicy,
} from "@cred/contracts/verification-policies";
import type { UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import { emitEvent } from "../shared/outbox";
import type { TenantScope } from "../shared/principal";
import { checkReferences } from "./create-verification-policy";
import {
  loadVerificationPolicyDto,
  rulesOf,
  toVerificationPolicyVersionDto,
} from "./verification-policy-dto";
import {
  verificationPolicyRepository as repo,
  type VerificationPolicyRow,
} from "./verification-policy-repository";

const unknownVersion = (version: number) => notFound(`Version ${version} of the verification policy`);

/**
 * One transaction, under the policy's row lock: the version change, and the
 * `verification_policy.version_activated` event when the active version changed. Sessions already
 * created keep what they were created with (each stores its own copy of the rules and purpose); new
 * ones, from the commit on, run under the active version.
 */
async function changeVersions(
  db: UnitOfWork,
  scope: TenantScope,
  identifier: string,
  change: (tx: UnitOfWork, row: VerificationPolicyRow, now: Date) => Promise<number>,
): Promise<TVerificationPolicy> {
  return db.transaction(async (tx) => {
    const locked = await repo.lockForUpdate(tx, scope, identifier);
    if (!locked) throw notFound("The verification policy");
    const previousVersion = locked.activeVersion;
    const now = new Date();
    const version = await change(tx, locked, now);
    let row = locked;
    if (version !== previousVersion) {
      const activated = await repo.activate(tx, scope, locked.id, version, now);
      if (!activated) throw unknownVersion(version);
      row = activated;
      await emitEvent(tx, scope, "verification_policy.version_activated", {
        identifier: row.identifier,
        displayName: row.displayName,
        status: row.status,
        version,
        previousVersion,
      });
    }
    return loadVerificationPolicyDto(tx, row);
  });
}

/**
 * A new version with the whole content of the policy (as on create, without the identifier), checked
 * as on create (references, no policy without claims), and active at once. The policy's status
 * (active or suspended) does not change.
 */
export async function createVerificationPolicyVersion(
  db: UnitOfWork,
  scope: TenantScope,
  config: Pick<CoreConfig, "developmentMode">,
  input: TCreateVerificationPolicyVersionRequest,
): Promise<TVerificationPolicy> {
  const rules: TPolicyRules = {
    credentials: input.credentials,
    credentialSets: input.credentialSets,
    responseMode: input.responseMode,
    dcApi: input.dcApi,
    sessionLifetimeSeconds: input.sessionLifetimeSeconds,
    clientIdPrefix: input.clientIdPrefix,
    didMethod: input.didMethod,
    sameDeviceRedirectUri: input.sameDeviceRedirectUri,
    requireResponseCode: input.requireResponseCode,
    reportInvalidPresentationsToWallet: input.reportInvalidPresentationsToWallet,
    verifierInfo: input.verifierInfo,
    ...(input.relyingPartyId ? { relyingPartyId: input.relyingPartyId } : {}),
    ...(input.registrationCertificateIds
      ? { registrationCertificateIds: input.registrationCertificateIds }
      : {}),
  };
  return changeVersions(db, scope, input.policyIdentifier, async (tx, row, now) => {
    const details = await checkReferences(tx, scope, config, rules);
    if (details.length > 0) {
      throw new DomainError("ValidationFailed", "The policy rules are not valid; see details.", details);
    }
    const versions = await repo.versionsOf(tx, row.id);
    if (versions.length >= MAX_POLICY_VERSIONS) {
      throw new DomainError(
        "InvalidState",
        `The policy has ${MAX_POLICY_VERSIONS} versions, the most it may have; activate one of them or create another policy.`,
        [{ code: "VersionLimit", target: "policyIdentifier", message: "No more versions can be added." }],
      );
    }
    const version = Math.max(0, ...versions.map((v) => v.version)) + 1;
    await repo.addVersion(tx, {
      id: newId("vpv"),
      policyId: row.id,
      version,
      status: "superseded", // until `activate` makes it the active one
      displayName: input.displayName,
      purpose: input.purpose ?? null,
      rules: rules as object,
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
export function activateVerificationPolicyVersion(
  db: UnitOfWork,
  scope: TenantScope,
  input: { policyIdentifier: string; version: number },
): Promise<TVerificationPolicy> {
  return changeVersions(db, scope, input.policyIdentifier, async (tx, row) => {
    const versions = await repo.versionsOf(tx, row.id);
    if (!versions.some((v) => v.version === input.version)) throw unknownVersion(input.version);
    return input.version;
  });
}

/** One version of a policy with its content; 404 for a policy or a version that does not exist. */
export async function getVerificationPolicyVersion(
  db: UnitOfWork,
  scope: TenantScope,
  input: { policyIdentifier: string; version: number },
) {
  const row = await repo.findByIdentifier(db, scope, input.policyIdentifier);
  if (!row) throw notFound("The verification policy");
  const version = (await repo.versionsOf(db, row.id)).find((v) => v.version === input.version);
  if (!version) throw unknownVersion(input.version);
  return {
    ...toVerificationPolicyVersionDto(version),
    displayName: version.displayName,
    purpose: version.purpose,
    rules: rulesOf(version),
  };
}
