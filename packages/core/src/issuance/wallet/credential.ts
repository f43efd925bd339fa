import { createHash } from "node:crypto";
import {
  type CredentialErrorCode,
  credentialError,
  encryptCredentialResponse,
  encryptedRequestKid,
  holderKeysOf,
  issueSdJwtVc,
  jwkThumbprintKid,
  OAuthError,
  parseCredentialRequest,
  type ResponseEncryption,
  readCredentialRequestBody,
  verifyAttestationProofs,
  verifyProofs,
} from "@cred/oid4vc";
import type { JWK } from "jose";
import {
  dpopNoncesOf,
  type IssuanceTransactionRecord,
  invalidToken,
  type PresentedCredentials,
  transactionForToken,
} from "../../authorization-server";
import { configurationCatalog } from "../../credential-configurations";
import {
  credentialEncryptionKeys,
  credentialEncryptionOf,
  issuerRepository,
  issuerSigningKey,
  issuerUrls,
  signingCertificateOf,
  x5cForSigning,
} from "../../issuers";
import type { AppDeps } from "../../shared/context";
import { newId, randomToken } from "../../shared/ids";
import { scopeOfRow } from "../../shared/scope-of";
import { hashSecret } from "../../shared/secret-box";
import { isRawUniqueViolation } from "../../shared/sql-errors";
import { issuanceRepository } from "../issuance-repository";
import { effectiveStatus } from "../issuance-transaction-dto";
import { issuedCredentialRepository } from "../issued-credential-repository";
import { disclosablePaths } from "../validate-claims";
import { openStatusList, randomSlots, type StatusSlot } from "./allocate-status-index";
import { keyAttestationCheck } from "./key-attestation";
import type { WalletIssuer } from "./load-wallet-issuer";
import { type CheckedNonce, checkNonce } from "./nonce";

const digestOf = (sdJwt: string) =>
  createHash("sha256")
    .update(sdJwt.slice(0, sdJwt.indexOf("~")))
    .digest("base64url");

/** Draws before the list counts as (nearly) full, and attempts before giving up. */
const FULL_AFTER_ATTEMPTS = 3;
const MAX_ATTEMPTS = 12;

const deny = (code: CredentialErrorCode, description: string) => credentialError(code, description);

/**
 * A configuration this issuer offers, but not the one the access token was issued for: OpenID4VCI
 * §8.3.1.1 answers a token that does not enable the requested credential with an RFC 6750 §3
 * authorization error (403 `insufficient_scope`), keeping `unknown_credential_configuration` for ids
 * the issuer does not have.
 */
async function refuseConfigurationBeyondToken(
  deps: AppDeps,
  tx: { issuerId: string; configurationIdentifier: string; tenantId: string; environment: string },
  body: unknown,
) {
  const requested = (body as { credential_configuration_id?: unknown } | null)?.credential_configuration_id;
  if (typeof requested !== "string" || requested === tx.configurationIdentifier) return;
  const db = deps.database.root;
  const other = await configurationCatalog.configuration(db, deps.caches, scopeOfRow(tx), requested);
  if (!other || !(await configurationCatalog.isGranted(db, deps.caches, tx.issuerId, other.id))) return;
  const description = "The access token does not cover this credential configuration.";
  throw new OAuthError("insufficient_scope", description, {
    status: 403,
    challenge: { schemes: ["Bearer"], withError: true },
  });
}

/**
 * What the credential and the deferred credential endpoints start with: the access token (and its DPoP
 * binding, for this endpoint's URL), then the body, decrypted where it came encrypted (§10), and how the
 * issuer's encryption settings apply to the request's `credential_response_encryption`.
 */
export async function receiveWalletRequest(
  deps: AppDeps,
  issuer: WalletIssuer,
  presented: PresentedCredentials,
  sent: { contentType: string | undefined; body: unknown },
  endpoint: "credential" | "deferredCredential",
) {
  const dpopNonces = dpopNoncesOf(deps.secretBox, issuer);
  const { tx, tokenHash } = await transactionForToken(deps.database.root, deps.caches, issuer.id, {
    ...presented,
    method: "POST",
    url: issuerUrls(deps.config, issuer.id)[endpoint],
    requireDpop: issuer.requireDpop,
    dpopNonces,
  });
  const settings = await encryptionSettingsFor(deps, issuer, sent);
  const encryption = credentialEncryptionOf(settings);
  const { body, encrypted } = await readCredentialRequestBody({
    ...sent,
    keys: credentialEncryptionKeys(deps, settings),
    required: encryption?.required ?? false,
  });
  const encryptionOption = encryption
    ? { encryption: { requestEncrypted: encrypted, required: encryption.required } }
    : {};
  return { tx, tokenHash, body, encryptionOption };
}

/**
 * The issuer row whose encryption settings read this request: the cached one, unless an encrypted request
 * names a key it does not know (or it has none), when the row is read afresh: another API process may have
 * turned encryption on or rotated the key less than the cache's 2 s ago, and the wallet read the new key.
 */
async function encryptionSettingsFor(
  deps: AppDeps,
  issuer: WalletIssuer,
  sent: { contentType: string | undefined; body: unknown },
): Promise<WalletIssuer> {
  const kid = encryptedRequestKid(sent.contentType, sent.body);
  if (kid === null) return issuer;
  const known = credentialEncryptionKeys(deps, issuer);
  if (known.length > 0 && (kid === undefined || known.some((k) => k.publicJwk.kid === kid))) return issuer;
  return (await issuerRepository.findByIdWithKeys(deps.database.root, issuer.id)) ?? issuer;
}

/**
 * Credential endpoint (OpenID4VCI §8): checks the token, the request and the key proofs, then issues
 * one SD-JWT VC per holder key (a proof's, or each key its key attestation attests; up to the batch
 * size), each with its own status index and salts, and completes the transaction — in one statement.
 * While the access token lives, the wallet may ask again (§14.3) and gets fresh credentials; the sealed
 * claims stay for that until the token expires. A deferred transaction whose claims are not yet
 * supplied keeps the holder keys instead and answers 202 with a `transaction_id` for the deferred
 * endpoint (§9).
 */
export async function issueCredentials(
  deps: AppDeps,
  issuer: WalletIssuer,
  presented: PresentedCredentials,
  sent: { contentType: string | undefined; body: unknown },
) {
  const db = deps.database.root;
  const received = await receiveWalletRequest(deps, issuer, presented, sent, "credential");
  const { tokenHash, body } = received;
  let tx = received.tx;
  refuseUnissuable(tx);
  const configuration = await configurationCatalog.configurationById(db, deps.caches, tx.configurationId);
  if (!configuration) throw new Error(`configuration ${tx.configurationId} of ${tx.id} is missing`);
  await refuseConfigurationBeyondToken(deps, tx, body);
  const keyAttestation = keyAttestationCheck(deps, issuer, Date.now());
  const request = parseCredentialRequest(body, {
    isKnownConfigurationId: (id) => id === tx.configurationIdentifier,
    isKnownCredentialIdentifier: (id) => id === tx.configurationIdentifier,
    proofsRequired: configuration.holderBindingRequired,
    acceptAttestationProofs: keyAttestation !== undefined,
    ...received.encryptionOption,
  });

  const urls = issuerUrls(deps.config, issuer.id);
  // One credential per holder key; null: an unbound credential.
  let holderKeys: (JWK | null)[] = [null];
  // When the key attestations behind the keys expire: the credentials do not outlive them.
  let keysNotAfter: number | undefined;
  // Checked here (ours, unexpired); spent by the completion statement below.
  const nonces: CheckedNonce[] = [];
  if (configuration.holderBindingRequired) {
    const consumeNonce = async (nonce: string) => {
      const checked = checkNonce(deps.secretBox, issuer.id, nonce);
      if (checked) nonces.push(checked);
      return checked !== null;
    };
    const { batchSize } = deps.config.issuance;
    const holder =
      request.proofs?.attestation && keyAttestation
        ? await verifyAttestationProofs(request.proofs.attestation, {
            check: keyAttestation,
            consumeNonce,
            batchSize,
          })
        : holderKeysOf(
            await verifyProofs(request.proofs?.jwt ?? [], {
              audience: urls.credentialIssuer,
              now: new Date(),
              consumeNonce,
              batchSize,
              ...(keyAttestation ? { keyAttestation } : {}),
            }),
            batchSize,
          );
    holderKeys = holder.keys;
    keysNotAfter = holder.notAfter;
  }

  const issuance = {
    tokenHash,
    configuration,
    holderKeys,
    keysNotAfter,
    nonces,
    responseEncryption: request.responseEncryption,
  };
  if (tx.deferred) {
    // The row may be the one remembered at the token endpoint, from before the claims were supplied.
    tx = (await issuanceRepository.findById(db, tx.id)) ?? tx;
    refuseUnissuable(tx);
    if (!tx.claimsCipher) {
      const deferred = await deferIssuance(deps, issuer, tx, issuance);
      if (deferred) return deferred;
      // Not deferred, for a reason committed after that statement began: read it afresh.
      tx = (await issuanceRepository.findById(db, tx.id)) ?? tx;
      refuseUnissuable(tx);
      if (!tx.claimsCipher)
        throw deny("credential_request_denied", "The issuance transaction is no longer pending.");
      // The claims came meanwhile. That statement spent this request's nonces (a replay was refused there).
      return issueAndComplete(deps, issuer, tx, { ...issuance, nonces: [] });
    }
  }
  return issueAndComplete(deps, issuer, tx, issuance);
}

/**
 * Whether the credential endpoint may issue for this transaction: a pending one, or a completed one while
 * its access token lives (OpenID4VCI §14.3: "The Credential Endpoint can be accessed multiple times by a
 * Wallet using the same Access Token, even for the same Credential"; the token was checked before). A
 * deferred request fixes the holder keys: once the wallet was told to wait, the credentials go to those
 * keys, through the deferred endpoint only and once, so that whoever else holds the (then longer-lived)
 * access token cannot put in keys of their own.
 */
function refuseUnissuable(tx: IssuanceTransactionRecord) {
  const status = effectiveStatus(tx);
  if (status !== "pending" && status !== "completed")
    throw deny("credential_request_denied", `The issuance transaction is ${status}.`);
  if (tx.deferredAt !== null)
    throw deny(
      "credential_request_denied",
      status === "pending"
        ? "This issuance was deferred: ask the deferred credential endpoint with its transaction_id."
        : "This issuance was deferred: its credentials were delivered by the deferred credential endpoint.",
    );
  if (status === "completed" && tx.claimsCipher === null)
    throw deny("credential_request_denied", "The issuance transaction is completed; it issues no more.");
}

/** What the issuing step needs beyond the transaction: the checked request and its holder keys. */
export interface CheckedIssuance {
  tokenHash: string;
  configuration: NonNullable<Awaited<ReturnType<typeof configurationCatalog.configurationById>>>;
  holderKeys: (JWK | null)[];
  keysNotAfter: number | undefined;
  nonces: CheckedNonce[];
  responseEncryption: ResponseEncryption | undefined;
  /** Issued at the deferred endpoint: losing to a concurrent poll means the transaction_id was used. */
  deferredDelivery?: boolean;
}

/**
 * What the credential and deferred credential endpoints hand over: credentials (`issued`) or a
 * `transaction_id` to come back with (`deferred`, §8.3, §9.2), as the response object, or as a compact
 * JWE of it where the wallet asked for encrypted responses (§10).
 */
export type CredentialAnswer =
  | { outcome: "issued" | "deferred"; response: Record<string, unknown>; encrypted?: undefined }
  | { outcome: "issued" | "deferred"; encrypted: string; response?: undefined };

/** The answer of `outcome`, encrypted when the wallet asked (§8.3, §9.2). */
export function walletAnswer(
  outcome: "issued" | "deferred",
  response: Record<string, unknown>,
  issuance: Pick<CheckedIssuance, "responseEncryption">,
): CredentialAnswer {
  if (issuance.responseEncryption)
    return { outcome, encrypted: encryptCredentialResponse(response, issuance.responseEncryption) };
  return { outcome, response };
}

/** The minimum wait, in seconds, a deferred answer asks of the wallet before it asks again (§8.3). */
export const DEFERRED_INTERVAL_SECONDS = 10;

/**
 * Defers a request that came before the claims (§8.3): keeps the holder keys, spends the nonces, extends
 * the transaction to its deferred wait and the access token with it, and records
 * `issuance.transaction.deferred`, in one statement. Answers 202 with a fresh `transaction_id` (built
 * first, so that nothing fails after the commit), or null when the statement found the transaction no
 * longer waiting (the caller reads why).
 */
async function deferIssuance(
  deps: AppDeps,
  issuer: WalletIssuer,
  tx: IssuanceTransactionRecord,
  issuance: CheckedIssuance,
) {
  const transactionId = randomToken(24);
  const answer = walletAnswer(
    "deferred",
    { transaction_id: transactionId, interval: DEFERRED_INTERVAL_SECONDS },
    issuance,
  );
  const outcome = await issuanceRepository.deferWithEvent(deps.database.root, {
    transactionId: tx.id,
    accessTokenHash: issuance.tokenHash,
    now: new Date(),
    nonces: issuance.nonces,
    deferredIdHash: hashSecret(transactionId),
    holderKeys: { keys: issuance.holderKeys, notAfter: issuance.keysNotAfter ?? null },
    event: transactionEvent(tx, issuer.id, "issuance.transaction.deferred", "pending"),
  });
  if (outcome === "token_invalid") throw invalidToken("The access token is invalid or expired.");
  if (outcome === "nonce_spent")
    throw deny("invalid_nonce", "the c_nonce is unknown, expired or already used");
  return outcome === "deferred" ? answer : null;
}

function transactionEvent(
  tx: IssuanceTransactionRecord,
  issuerId: string,
  type: string,
  status: string,
  extra: Record<string, unknown> = {},
) {
  return {
    scope: scopeOfRow(tx),
    type,
    data: {
      transactionId: tx.id,
      issuerId,
      credentialConfiguration: tx.configurationIdentifier,
      status,
      ...extra,
      callbackReference: tx.callbackReference,
      externalSubjectReference: tx.externalSubjectReference,
    },
  };
}

/**
 * Signs one credential per holder key and records them in one statement (below), from the credential
 * endpoint or, for a deferred transaction, the deferred credential endpoint. The first issuance completes
 * the transaction; a further request at the credential endpoint with the same access token (OpenID4VCI
 * §14.3) gets fresh credentials (new status indices and salts) recorded against the completed
 * transaction, with `issuance.transaction.reissued` instead of the completion event. Credentials the
 * deferred endpoint delivered are not issued again (`refuseUnissuable`), so their claims go at once.
 */
export async function issueAndComplete(
  deps: AppDeps,
  issuer: WalletIssuer,
  tx: IssuanceTransactionRecord,
  issuance: CheckedIssuance,
) {
  const db = deps.database.root;
  const { configuration, holderKeys, keysNotAfter, nonces } = issuance;
  const urls = issuerUrls(deps.config, issuer.id);
  const definitions =
    (await configurationCatalog.claims(db, deps.caches, configuration.id, tx.configurationVersion)) ?? [];
  if (!tx.claimsCipher)
    throw deny("credential_request_denied", "The issuance transaction has no claims left.");
  const claims = JSON.parse(deps.secretBox.open(tx.claimsCipher, tx.id)) as Record<string, unknown>;
  const disclosable = disclosablePaths(definitions, claims);
  const signingKey = await issuerSigningKey(deps, issuer);
  const scope = scopeOfRow(tx);
  const issuedAt = new Date();
  // OpenID4VCI §15.4.1: time claims SHOULD be randomised or rounded so they cannot link credentials (a
  // batch shares them) or their holder to the moment of issuance; iat is the start of the UTC day.
  const iat = Math.floor(issuedAt.getTime() / 86_400_000) * 86_400;
  const exp = Math.min(
    iat + configuration.defaultLifetimeDays * 86_400,
    keysNotAfter ?? Number.POSITIVE_INFINITY,
  );
  // §9.2 lets a deferred response carry a notification_id (MAY); ours does not, because oid4vc-ts 0.4.6
  // (Credo's wallet library) rejects a deferred response that has one. Such credentials get no notification.
  const notificationId = issuance.deferredDelivery ? null : randomToken(24);
  const ids = holderKeys.map(() => newId("cred"));
  const x5c = x5cForSigning(signingCertificateOf(issuer), issuedAt.getTime());
  const sign = (holderJwk: JWK | null, slot: StatusSlot | null) =>
    issueSdJwtVc({
      privateKey: signingKey.privateKey,
      kid: signingKey.kid,
      ...(x5c ? { x5c } : {}),
      iss: urls.credentialIssuer,
      vct: configuration.credentialType,
      ...(configuration.typeMetadataIntegrity ? { vctIntegrity: configuration.typeMetadataIntegrity } : {}),
      iat,
      exp,
      ...(holderJwk ? { cnfJwk: holderJwk } : {}),
      ...(slot ? { status: { idx: slot.idx, uri: urls.statusList(slot.listId) } } : {}),
      claims,
      disclosable,
    });
  const rowFor = (
    draft: { id: string; credential: string; slot: StatusSlot | null; holderKeyThumbprint: string | null },
    i: number,
  ) => ({
    id: draft.id,
    ...scope,
    issuerId: issuer.id,
    configurationId: configuration.id,
    transactionId: tx.id,
    notificationId: i === 0 ? notificationId : null,
    issuedAt,
    expiresAt: new Date(exp * 1000),
    digest: digestOf(draft.credential),
    statusListId: draft.slot?.listId ?? null,
    statusIndex: draft.slot?.idx ?? null,
    holderKeyThumbprint: draft.holderKeyThumbprint,
  });

  // Which of the two is written depends on whether this statement completes the transaction, which a
  // concurrent request with the same token may have done since the row was read.
  const completedEvent = transactionEvent(tx, issuer.id, "issuance.transaction.completed", "completed", {
    credentialIds: ids,
  });
  const reissuedEvent = issuance.deferredDelivery
    ? null
    : transactionEvent(tx, issuer.id, "issuance.transaction.reissued", "completed", { credentialIds: ids });

  // Signing happens before the single write statement; a status index taken meanwhile (rare) fails the
  // whole statement, and the credentials are drawn and signed again.
  for (let attempt = 1; ; attempt++) {
    const list = configuration.statusEnabled ? await openStatusList(deps, db, scope, issuer.id) : null;
    const slots = list ? randomSlots(list, holderKeys.length) : holderKeys.map(() => null);
    const drafts = await Promise.all(
      holderKeys.map(async (holderJwk, i) => ({
        id: ids[i]!,
        slot: slots[i]!,
        credential: await sign(holderJwk, slots[i]!),
        holderKeyThumbprint: holderJwk ? jwkThumbprintKid(holderJwk) : null,
      })),
    );
    // Built (and, where asked, encrypted) before the completion commits, so that nothing can fail
    // between issuing the credentials and handing them over.
    const answer = walletAnswer(
      "issued",
      {
        credentials: drafts.map((d) => ({ credential: d.credential })),
        ...(notificationId ? { notification_id: notificationId } : {}),
      },
      issuance,
    );
    try {
      const recorded = await issuanceRepository.recordCredentials(db, {
        transactionId: tx.id,
        accessTokenHash: issuance.tokenHash,
        now: new Date(),
        nonces,
        credentials: drafts.map(rowFor),
        completedEvent,
        reissuedEvent,
        dropClaims: issuance.deferredDelivery === true,
        ...(tx.deferred
          ? { capTokenAt: new Date(Date.now() + deps.config.issuance.accessTokenLifetimeSeconds * 1000) }
          : {}),
      });
      const { outcome } = recorded;
      if (recorded.outcome === "issued" && recorded.completed)
        db.afterCommit(() => deps.metrics.issuanceCompleted());
      if (outcome === "token_invalid") throw invalidToken("The access token is invalid or expired.");
      if (outcome === "nonce_spent")
        throw deny("invalid_nonce", "the c_nonce is unknown, expired or already used");
      if (outcome === "not_issuable") {
        throw issuance.deferredDelivery
          ? deny("invalid_transaction_id", "this transaction_id was just used")
          : deny("credential_request_denied", "The issuance transaction issues no more credentials.");
      }
      return answer;
    } catch (error) {
      if (!list || !isRawUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
      // Repeated collisions mean the list is nearly full: move on to a fresh one.
      if (attempt >= FULL_AFTER_ATTEMPTS)
        await issuedCredentialRepository.markStatusListFull(db, deps.caches, issuer.id, list.id);
    }
  }
}
