import { createHash } from "node:crypto";
import { type Db, inTransaction } from "@cred/db";
import {
  type CredentialErrorCode,
  credentialError,
  issueSdJwtVc,
  parseCredentialRequest,
  type VerifiedProof,
  verifyProofs,
} from "@cred/oid4vc";
import type { AppDeps } from "../../context";
import { newId, randomToken } from "../../shared/ids";
import { emitEvent } from "../../shared/outbox";
import { scopeOfRow } from "../../shared/scope-of";
import { hashSecret } from "../../shared/secret-box";
import { issuanceCatalog } from "../issuance-catalog";
import { effectiveStatus } from "../issuance-transaction-dto";
import { issuerUrls } from "../issuance-urls";
import { issuerSigningKey } from "../issuer-signing-keys";
import { disclosablePaths } from "../validate-claims";
import { insertAtFreshSlot, openStatusList, randomSlots, type StatusSlot } from "./allocate-status-index";
import { invalidToken, NO_STORE, type WalletIssuer } from "./load-wallet-issuer";
import { consumeNonce } from "./nonce";

const digestOf = (sdJwt: string) =>
  createHash("sha256")
    .update(sdJwt.slice(0, sdJwt.indexOf("~")))
    .digest("base64url");

const deny = (code: CredentialErrorCode, description: string) => credentialError(code, description);

/** The access token from `Authorization: Bearer …` (DPoP is not offered), or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header?.trim() ?? "");
  return match ? match[1]! : null;
}

/** Finds the pending transaction an access token was issued for, or throws `invalid_token` (401). */
export async function transactionForToken(db: Db, issuerId: string, authorization: string | undefined) {
  const token = bearerToken(authorization);
  if (!token) throw invalidToken("A Bearer access token is required.");
  const record = await db.accessToken.findUnique({ where: { tokenHash: hashSecret(token) } });
  if (!record || record.expiresAt.getTime() <= Date.now())
    throw invalidToken("The access token is invalid or expired.");
  const tx = await db.issuanceTransaction.findUnique({ where: { id: record.transactionId } });
  if (!tx || tx.issuerId !== issuerId) throw invalidToken("The access token is invalid or expired.");
  return tx;
}

/**
 * Credential endpoint (OpenID4VCI §8): checks the token, the request and the key proofs, then issues
 * one SD-JWT VC per proof (up to the batch size), each with its own status index and salts, completes
 * the transaction and forgets the claims — all in one database transaction.
 */
export async function issueCredentials(
  deps: AppDeps,
  issuer: WalletIssuer,
  authorization: string | undefined,
  body: unknown,
) {
  const db = deps.database.prisma;
  const tx = await transactionForToken(db, issuer.id, authorization);
  if (effectiveStatus(tx) !== "pending") {
    throw deny("credential_request_denied", `The issuance transaction is ${effectiveStatus(tx)}.`);
  }
  const configuration = await db.credentialConfiguration.findUniqueOrThrow({
    where: { id: tx.configurationId },
  });
  const request = parseCredentialRequest(body, {
    isKnownConfigurationId: (id) => id === tx.configurationIdentifier,
    isKnownCredentialIdentifier: (id) => id === tx.configurationIdentifier,
    proofsRequired: configuration.holderBindingRequired,
  });

  const urls = issuerUrls(deps.config, issuer.id);
  let proofs: (VerifiedProof | null)[] = [null];
  if (configuration.holderBindingRequired) {
    proofs = await verifyProofs(request.proofs?.jwt ?? [], {
      audience: urls.credentialIssuer,
      now: new Date(),
      consumeNonce: (nonce) => consumeNonce(db, nonce),
      batchSize: deps.config.issuance.batchSize,
    });
  }

  const definitions = (await issuanceCatalog.claims(db, configuration.id, tx.configurationVersion)) ?? [];
  if (!tx.claimsCipher)
    throw deny("credential_request_denied", "The issuance transaction has no claims left.");
  const claims = JSON.parse(deps.secretBox.open(tx.claimsCipher, tx.id)) as Record<string, unknown>;
  const disclosable = disclosablePaths(definitions, claims);
  const signingKey = await issuerSigningKey(deps.secretBox, issuer);
  const scope = scopeOfRow(tx);
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + configuration.defaultLifetimeDays * 86_400;
  const notificationId = randomToken(24);

  const sign = (proof: VerifiedProof | null, slot: StatusSlot | null) =>
    issueSdJwtVc({
      privateKey: signingKey.privateKey,
      kid: signingKey.kid,
      iss: urls.credentialIssuer,
      vct: configuration.credentialType,
      iat,
      exp,
      ...(proof ? { cnfJwk: proof.holderJwk } : {}),
      ...(slot ? { status: { idx: slot.idx, uri: urls.statusList(slot.listId) } } : {}),
      claims,
      disclosable,
    });
  const rowFor = (
    draft: { id: string; proof: VerifiedProof | null; credential: string; slot: StatusSlot | null },
    i: number,
  ) => ({
    id: draft.id,
    ...scope,
    issuerId: issuer.id,
    configurationId: configuration.id,
    transactionId: tx.id,
    status: "issued",
    holderKeyThumb: draft.proof?.holderKeyThumbprint ?? null,
    notificationId: i === 0 ? notificationId : null,
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
    digest: digestOf(draft.credential),
    statusListId: draft.slot?.listId ?? null,
    statusIndex: draft.slot?.idx ?? null,
  });

  // Sign before the transaction so the database is held only for the writes.
  const slots = configuration.statusEnabled
    ? randomSlots(await openStatusList(db, deps.config, scope, issuer.id), proofs.length)
    : proofs.map(() => null);
  const drafts = await Promise.all(
    proofs.map(async (proof, i) => ({
      id: newId("cred"),
      proof,
      slot: slots[i]!,
      credential: await sign(proof, slots[i]!),
    })),
  );

  await inTransaction(db, async (dbtx) => {
    const now = new Date();
    const { count } = await dbtx.issuanceTransaction.updateMany({
      where: { id: tx.id, status: "pending", expiresAt: { gt: now } },
      data: {
        status: "completed",
        completedAt: now,
        credentialId: drafts[0]!.id,
        claimsCipher: null,
        offerCipher: null,
        offerHandleHash: null,
      },
    });
    if (count !== 1)
      throw deny("credential_request_denied", "The issuance transaction is no longer pending.");
    const inserted = await dbtx.credential.createMany({ data: drafts.map(rowFor), skipDuplicates: true });
    if (inserted.count !== drafts.length) {
      // An index was taken since it was drawn (rare): sign those credentials again at fresh indices.
      const present = new Set(
        (await dbtx.credential.findMany({ where: { transactionId: tx.id }, select: { id: true } })).map(
          (c) => c.id,
        ),
      );
      for (const [i, draft] of drafts.entries()) {
        if (present.has(draft.id)) continue;
        await insertAtFreshSlot(dbtx, deps.config, scope, issuer.id, async (slot) => {
          draft.slot = slot;
          draft.credential = await sign(draft.proof, slot);
          const one = await dbtx.credential.createMany({ data: [rowFor(draft, i)], skipDuplicates: true });
          return one.count === 1;
        });
      }
    }
    await emitEvent(dbtx, scope, "issuance.transaction.completed", {
      transactionId: tx.id,
      issuerId: issuer.id,
      credentialConfiguration: tx.configurationIdentifier,
      status: "completed",
      credentialIds: drafts.map((d) => d.id),
      callbackReference: tx.callbackReference,
      externalSubjectReference: tx.externalSubjectReference,
    });
  });

  return {
    headers: NO_STORE,
    body: { credentials: drafts.map((d) => ({ credential: d.credential })), notification_id: notificationId },
  };
}
