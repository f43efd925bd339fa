import { ISSUER_READ_ONLY_FIELDS, type TIssuer, type TUpdateIssuerRequest } from "@cred/contracts/issuers";
import type { Prisma, UnitOfWork } from "@cred/db";
import { organisationRepository } from "../organisations";
import type { Caches } from "../shared/caches";
import type { CoreConfig } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { KeyCustody } from "../shared/key-custody";
import type { SecretBox } from "../shared/secret-box";
import { assertTrustSourcesExist } from "../trust-sources";
import { attesterSourcesOf } from "./attester-sources";
import { organisationNotFound } from "./create-issuer";
import {
  applyCredentialEncryptionSettings,
  generateCredentialEncryptionKey,
} from "./credential-encryption-key";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { discardMintedOnFailure } from "./issuer-key-custody";
import { resolveKeyCustody } from "./issuer-key-custody-purposes";
import { type IssuerChanges, issuerRepository } from "./issuer-repository";
import { applyStatusListSigningSettings } from "./status-list-signing-key";

/**
 * Refuses a patch that names a read-only field of the issuer resource (400 ReadOnlyField). Runs on
 * the raw body, before the strict schema would report the field as merely unknown.
 */
export function assertNoReadOnlyIssuerFields(raw: unknown): void {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return;
  const named = ISSUER_READ_ONLY_FIELDS.filter((field) => Object.hasOwn(raw, field));
  if (named.length === 0) return;
  throw new DomainError(
    "ReadOnlyField",
    `${named.map((f) => `'${f}'`).join(", ")} ${named.length === 1 ? "is" : "are"} read-only and cannot be changed.`,
    named.map((field) => ({ code: "ReadOnlyField", target: field, message: `'${field}' is read-only.` })),
  );
}

/**
 * JSON merge patch (RFC 7396) of an issuer: an absent member is unchanged, `null` clears an optional
 * member, and `display` is replaced as a whole.
 */
export async function updateIssuer(
  deps: { db: UnitOfWork; config: CoreConfig; secretBox: SecretBox; keyCustody: KeyCustody; caches: Caches },
  caller: IssuerCaller,
  input: TUpdateIssuerRequest,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  const custody =
    input.keyCustody !== undefined ? resolveKeyCustody(deps.keyCustody, input.keyCustody) : undefined;
  return discardMintedOnFailure(deps, input.issuerId, (mint) =>
    deps.db.transaction(async (tx) => {
      // A key change reads the current key under the row lock, so that concurrent changes queue.
      const current =
        input.credentialEncryption !== undefined || input.statusListSigning !== undefined
          ? await lockVisibleIssuer(tx, caller, input.issuerId)
          : await findVisibleIssuer(tx, caller, input.issuerId);
      const data: IssuerChanges = {};
      if (input.organisationReference !== undefined) {
        const organisation = await organisationRepository.findByReference(
          tx,
          scope,
          input.organisationReference,
        );
        if (!organisation) throw organisationNotFound(input.organisationReference);
        data.organisationId = organisation.id;
      }
      if (input.displayName !== undefined) data.displayName = input.displayName;
      if (input.description !== undefined) data.description = input.description;
      if (input.logoUri !== undefined) data.logoUri = input.logoUri;
      if (input.display !== undefined) data.display = input.display ?? [];
      if (input.requireDpop !== undefined) data.requireDpop = input.requireDpop;
      if (input.requireDpopNonce !== undefined) data.requireDpopNonce = input.requireDpopNonce;
      if (input.walletAttestation !== undefined) {
        await assertTrustSourcesExist(
          tx,
          scope,
          attesterSourcesOf(input.walletAttestation, "walletAttestation"),
        );
        data.walletAttestation = input.walletAttestation ?? null;
      }
      if (input.keyAttestation !== undefined) {
        await assertTrustSourcesExist(tx, scope, attesterSourcesOf(input.keyAttestation, "keyAttestation"));
        data.keyAttestation = input.keyAttestation ?? null;
      }
      if (input.authorizationPage !== undefined) {
        data.authorizationPage = input.authorizationPage ?? null;
      }
      if (input.allowedRedirectUris !== undefined) {
        data.allowedRedirectUris = input.allowedRedirectUris ?? null;
      }
      // A key made now is made in the custody the issuer has after this patch.
      const custodyAfter = {
        id: current.id,
        keyProvider: custody?.keyProvider ?? current.keyProvider,
        keyCustodyPurposes: custody?.keyCustodyPurposes ?? current.keyCustodyPurposes,
      };
      if (input.credentialEncryption !== undefined) {
        const settings = await applyCredentialEncryptionSettings(
          tx,
          deps,
          { issuerId: current.id, ...scope },
          current,
          input.credentialEncryption,
          new Date(),
          () => mint(() => generateCredentialEncryptionKey(deps, custodyAfter)),
        );
        data.credentialEncryption = settings ? { required: settings.required } : null;
      }
      if (input.statusListSigning !== undefined) {
        const changed = await applyStatusListSigningSettings(
          tx,
          deps,
          {
            issuerId: current.id,
            ...scope,
            keyProvider: custodyAfter.keyProvider,
            keyCustodyPurposes: custodyAfter.keyCustodyPurposes,
          },
          current,
          input.statusListSigning,
          mint,
        );
        if (changed) data.updatedAt = new Date();
      }
      if (custody !== undefined) {
        data.keyProvider = custody.keyProvider;
        data.keyCustodyPurposes = custody.keyCustodyPurposes as unknown as Prisma.InputJsonValue;
      }
      if (Object.keys(data).length === 0) return loadIssuerDto(tx, deps.config, scope, current);
      await issuerRepository.update(tx, deps.caches, scope, current.id, data);
      const updated = await findVisibleIssuer(tx, caller, current.id);
      return loadIssuerDto(tx, deps.config, scope, updated);
    }),
  );
}
