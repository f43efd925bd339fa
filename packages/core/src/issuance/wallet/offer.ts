import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../../shared/context";
import { hashSecret } from "../../shared/secret-box";
import { issuanceRepository } from "../issuance-repository";
import { effectiveStatus, offerFor, type SealedOffer } from "../issuance-transaction-dto";
import { createdOffers } from "./created-offers";

/** The credential offer behind an offer URI (by reference), while the transaction is pending. */
export async function credentialOfferByHandle(
  deps: Pick<AppDeps, "config" | "secretBox" | "caches">,
  db: UnitOfWork,
  issuerId: string,
  handle: string,
) {
  const remembered = createdOffers.take(deps.caches, hashSecret(handle), issuerId);
  if (remembered) return remembered;
  const row = await issuanceRepository.findByOfferHandleHash(db, hashSecret(handle));
  if (!row || row.issuerId !== issuerId || !row.offerCipher || effectiveStatus(row) !== "pending")
    return null;
  if (row.codeRedeemedAt) return null;
  const sealed = JSON.parse(deps.secretBox.open(row.offerCipher, row.id)) as SealedOffer;
  return offerFor(deps.config, row, sealed);
}
