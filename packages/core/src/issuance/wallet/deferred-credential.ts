import { credentialError, parseDeferredCredentialRequest } from "@cred/oid4vc";
import type { JWK } from "jose";
import type { PresentedCredentials } from "../../authorization-server";
import { configurationCatalog } from "../../credential-configurations";
import type { AppDeps } from "../../shared/context";
import { hashSecret } from "../../shared/secret-box";
import { issuanceRepository } from "../issuance-repository";
import { effectiveStatus } from "../issuance-transaction-dto";
import {
  DEFERRED_INTERVAL_SECONDS,
  issueAndComplete,
  receiveWalletRequest,
  walletAnswer,
} from "./credential";
import type { WalletIssuer } from "./load-wallet-issuer";

/** The holder keys a deferred request left behind (public keys; null for an unbound credential). */
interface DeferredHolderKeys {
  keys: (JWK | null)[];
  notAfter: number | null;
}

/**
 * Deferred Credential Endpoint (OpenID4VCI §9): with the access token of the deferred request and its
 * `transaction_id`, issues the credentials to the holder keys kept then, once the claims are supplied;
 * until then 202 with the same `transaction_id` and the interval. A `transaction_id` that is not the
 * token's transaction's, or whose credentials were delivered, is `invalid_transaction_id`. Cancelling or
 * expiring the transaction revokes the token, so the wallet gets 401 then; holder keys whose key
 * attestation expired while waiting are `credential_request_denied`.
 */
export async function issueDeferredCredentials(
  deps: AppDeps,
  issuer: WalletIssuer,
  presented: PresentedCredentials,
  sent: { contentType: string | undefined; body: unknown },
) {
  const db = deps.database.root;
  const received = await receiveWalletRequest(deps, issuer, presented, sent, "deferredCredential");
  const { tx: remembered, tokenHash } = received;
  const request = parseDeferredCredentialRequest(received.body, received.encryptionOption);
  // Read afresh: the claims may have been supplied since the token's row was remembered.
  const tx = (await issuanceRepository.findById(db, remembered.id)) ?? remembered;
  if (tx.deferredIdHash === null || tx.deferredIdHash !== hashSecret(request.transactionId)) {
    throw credentialError("invalid_transaction_id", "unknown, replaced or already used transaction_id");
  }
  const status = effectiveStatus(tx);
  if (status !== "pending")
    throw credentialError("credential_request_denied", `The issuance transaction is ${status}.`);
  const answer = { responseEncryption: request.responseEncryption };
  if (!tx.claimsCipher) {
    return walletAnswer(
      "deferred",
      { transaction_id: request.transactionId, interval: DEFERRED_INTERVAL_SECONDS },
      answer,
    );
  }
  const configuration = await configurationCatalog.configurationById(db, deps.caches, tx.configurationId);
  if (!configuration) throw new Error(`configuration ${tx.configurationId} of ${tx.id} is missing`);
  const holder = tx.deferredHolderKeys as DeferredHolderKeys | null;
  if (!holder) throw new Error(`deferred transaction ${tx.id} has no holder keys`);
  if (holder.notAfter !== null && holder.notAfter * 1000 <= Date.now()) {
    throw credentialError(
      "credential_request_denied",
      "The key attestation of the holder keys expired while the issuance waited; the person starts again with a new offer.",
    );
  }
  return issueAndComplete(deps, issuer, tx, {
    tokenHash,
    configuration,
    holderKeys: holder.keys,
    keysNotAfter: holder.notAfter ?? undefined,
    nonces: [],
    deferredDelivery: true,
    ...answer,
  });
}
