import type { TCreateIssuerRequest, TIssuer } from "@cred/contracts/issuers";
import type { Prisma, UnitOfWork } from "@cred/db";
import { organisationRepository } from "../organisations";
import type { Caches } from "../shared/caches";
import type { CoreConfig } from "../shared/context";
import { DomainError } from "../shared/errors";
import { newId } from "../shared/ids";
import type { KeyCustody } from "../shared/key-custody";
import type { SecretBox } from "../shared/secret-box";
import { assertTrustSourcesExist } from "../trust-sources";
import { attesterSourcesOf } from "./attester-sources";
import {
  applyCredentialEncryptionSettings,
  generateCredentialEncryptionKey,
} from "./credential-encryption-key";
import { type IssuerCaller, scopeOfCaller } from "./issuer-caller";
import { toIssuerDto } from "./issuer-dto";
import { discardIfNotStored, discardMintedOnFailure, generateIssuerSigningKey } from "./issuer-key-custody";
import { resolveKeyCustody } from "./issuer-key-custody-purposes";
import { issuerKeyRepository, type NewIssuerKey } from "./issuer-key-repository";
import { issuerRepository } from "./issuer-repository";
import { provisionStatusList } from "./provision-status-list";
import { applyStatusListSigningSettings } from "./status-list-signing-key";

export interface IssuerDeps {
  db: UnitOfWork;
  config: CoreConfig;
  secretBox: SecretBox;
  keyCustody: KeyCustody;
  caches: Caches;
}

export const organisationNotFound = (reference: string) =>
  new DomainError("NotFound", `The organisation '${reference}' was not found.`, [
    { code: "NotFound", target: "organisationReference", message: "Create the organisation first." },
  ]);

/**
 * Creates a draft issuer with a fresh ES256 signing key, made by the key provider its custody names
 * (`software`: the private JWK sealed at rest, bound to the issuer id; `pkcs11`: generated inside the
 * token), and its first status list, in one transaction. A key the transaction does not store is
 * destroyed again.
 */
export async function createIssuer(
  deps: IssuerDeps,
  caller: IssuerCaller,
  input: TCreateIssuerRequest,
): Promise<TIssuer> {
  if (caller.boundIssuerId !== null) {
    throw new DomainError(
      "IssuerBindingMismatch",
      "This API key acts for one issuer only and cannot create issuers.",
    );
  }
  const scope = scopeOfCaller(caller);
  const custody = resolveKeyCustody(deps.keyCustody, input.keyCustody ?? { provider: "software" });
  const id = newId("iss");
  const signingKey = await generateIssuerSigningKey(deps, { id, ...custody });
  return discardIfNotStored(deps, id, signingKey, async () => ({
    used: true,
    result: await createWithKey(deps, scope, id, custody, signingKey, input),
  }));
}

function createWithKey(
  deps: IssuerDeps,
  scope: ReturnType<typeof scopeOfCaller>,
  id: string,
  custody: ReturnType<typeof resolveKeyCustody>,
  signingKey: NewIssuerKey,
  input: TCreateIssuerRequest,
): Promise<TIssuer> {
  return discardMintedOnFailure(deps, id, (mint) =>
    deps.db.transaction(async (tx) => {
      const organisation = await organisationRepository.findByReference(
        tx,
        scope,
        input.organisationReference,
      );
      if (!organisation) throw organisationNotFound(input.organisationReference);
      await assertTrustSourcesExist(tx, scope, [
        ...attesterSourcesOf(input.walletAttestation, "walletAttestation"),
        ...attesterSourcesOf(input.keyAttestation, "keyAttestation"),
      ]);
      const createdAt = new Date();
      await issuerRepository.create(tx, {
        id,
        ...scope,
        organisationId: organisation.id,
        displayName: input.displayName,
        description: input.description ?? null,
        logoUri: input.logoUri ?? null,
        display: input.display ?? [],
        requireDpop: input.requireDpop ?? false,
        requireDpopNonce: input.requireDpopNonce ?? false,
        ...(input.walletAttestation ? { walletAttestation: input.walletAttestation } : {}),
        ...(input.keyAttestation ? { keyAttestation: input.keyAttestation } : {}),
        ...(input.authorizationPage ? { authorizationPage: input.authorizationPage } : {}),
        ...(input.allowedRedirectUris ? { allowedRedirectUris: input.allowedRedirectUris } : {}),
        ...(input.credentialEncryption
          ? { credentialEncryption: { required: input.credentialEncryption.required } }
          : {}),
        keyProvider: custody.keyProvider,
        keyCustodyPurposes: custody.keyCustodyPurposes as unknown as Prisma.InputJsonValue,
        status: "draft",
        createdAt,
      });
      const issuer = { issuerId: id, ...scope };
      await issuerKeyRepository.create(
        tx,
        deps.caches,
        issuer,
        "credential_signing",
        "current",
        signingKey,
        createdAt,
      );
      // The settings are in the row already; this makes the key they publish (in the issuer's custody).
      if (input.credentialEncryption)
        await applyCredentialEncryptionSettings(
          tx,
          deps,
          issuer,
          null,
          input.credentialEncryption,
          createdAt,
          () => mint(() => generateCredentialEncryptionKey(deps, { id, ...custody })),
        );
      if (input.statusListSigning)
        await applyStatusListSigningSettings(
          tx,
          deps,
          { ...issuer, ...custody },
          null,
          input.statusListSigning,
          mint,
          createdAt,
        );
      await provisionStatusList(tx, scope, id, deps.config);
      const row = await issuerRepository.findById(tx, scope, id);
      return toIssuerDto(deps.config, row!, organisation.reference);
    }),
  );
}
