import type { Db } from "@cred/db";
import type { CoreConfig } from "../../context";
import { hashSecret, type SecretBox } from "../../shared/secret-box";
import { effectiveStatus, offerFor, type SealedOffer } from "../issuance-transaction-dto";

/** The credential offer behind an offer URI (by reference), while the transaction is pending. */
export async function credentialOfferByHandle(
  deps: { config: CoreConfig; secretBox: SecretBox },
  db: Db,
  issuerId: string,
  handle: string,
) {
  const row = await db.issuanceTransaction.findUnique({ where: { offerHandleHash: hashSecret(handle) } });
  if (!row || row.issuerId !== issuerId || !row.offerCipher || effectiveStatus(row) !== "pending")
    return null;
  if (row.codeRedeemedAt) return null;
  const sealed = JSON.parse(deps.secretBox.open(row.offerCipher, row.id)) as SealedOffer;
  return offerFor(deps.config, row, sealed);
}
