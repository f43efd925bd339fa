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
import type { TClaimDefinition } from "../../credential-configurations/credential-configuration.schema";
import { newId, randomToken } from "../../shared/ids";
import { emitEvent } from "../../shared/outbox";
import { scopeOfRow } from "../../shared/scope-of";
import { hashSecret } from "../../shared/secret-box";
import { effectiveStatus } from "../issuance-transaction-dto";
import { issuerUrls } from "../issuance-urls";
import { issuerSigningKey } from "../issuer-signing-keys";
import { disclosablePaths } from "../validate-claims";
import { allocateAndInsert } from "./insert-credential";
import { invalidToken, NO_STORE, type WalletIssuer } from "./load-wallet-issuer";
import { consumeNonce } from "./nonce";

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

  const version = await db.credentialConfigurationVersion.findUniqueOrThrow({
    where: {
      configurationId_version: { configurationId: configuration.id, version: tx.configurationVersion },
    },
  });
  if (!tx.claimsCipher)
    throw deny("credential_request_denied", "The issuance transaction has no claims left.");
  const claims = JSON.parse(deps.secretBox.open(tx.claimsCipher, tx.id)) as Record<string, unknown>;
  const disclosable = disclosablePaths(version.claims as TClaimDefinition[], claims);
  const signingKey = await issuerSigningKey(deps.secretBox, issuer);
  const scope = scopeOfRow(tx);
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + configuration.defaultLifetimeDays * 86_400;
  const notificationId = randomToken(24);

  const issued = await inTransaction(db, async (dbtx) => {
    const now = new Date();
    const { count } = await dbtx.issuanceTransaction.updateMany({
      where: { id: tx.id, status: "pending", expiresAt: { gt: now } },
      data: {
        status: "completed",
        completedAt: now,
        claimsCipher: null,
        offerCipher: null,
        offerHandleHash: null,
      },
    });
    if (count !== 1)
      throw deny("credential_request_denied", "The issuance transaction is no longer pending.");

    const credentials: { id: string; credential: string }[] = [];
    for (const [i, proof] of proofs.entries()) {
      const id = newId("cred");
      const sign = (status?: { idx: number; uri: string }) =>
        issueSdJwtVc({
          privateKey: signingKey.privateKey,
          kid: signingKey.kid,
          iss: urls.credentialIssuer,
          vct: configuration.credentialType,
          iat,
          exp,
          ...(proof ? { cnfJwk: proof.holderJwk } : {}),
          ...(status ? { status } : {}),
          claims,
          disclosable,
        });
      const row = {
        id,
        ...scope,
        issuerId: issuer.id,
        configurationId: configuration.id,
        transactionId: tx.id,
        status: "issued",
        holderKeyThumb: proof?.holderKeyThumbprint ?? null,
        notificationId: i === 0 ? notificationId : null,
        issuedAt: new Date(iat * 1000),
        expiresAt: new Date(exp * 1000),
      };
      const credential = await allocateAndInsert(
        dbtx,
        deps.config,
        scope,
        issuer.id,
        configuration.statusEnabled,
        {
          sign: (slot) => sign(slot ? { idx: slot.idx, uri: urls.statusList(slot.listId) } : undefined),
          row,
          digestOf: (sdJwt) =>
            createHash("sha256")
              .update(sdJwt.slice(0, sdJwt.indexOf("~")))
              .digest("base64url"),
        },
      );
      credentials.push({ id, credential });
    }
    await dbtx.issuanceTransaction.update({
      where: { id: tx.id },
      data: { credentialId: credentials[0]!.id },
    });
    await emitEvent(dbtx, scope, "issuance.transaction.completed", {
      transactionId: tx.id,
      issuerId: issuer.id,
      credentialConfiguration: tx.configurationIdentifier,
      status: "completed",
      credentialIds: credentials.map((c) => c.id),
      callbackReference: tx.callbackReference,
      externalSubjectReference: tx.externalSubjectReference,
    });
    return credentials;
  });

  return {
    headers: NO_STORE,
    body: { credentials: issued.map((c) => ({ credential: c.credential })), notification_id: notificationId },
  };
}
