import type { FastSql } from "@cred/db";
import type { CoreConfig } from "../../shared/context";
import { hashSecret, type SecretBox } from "../../shared/secret-box";
import {
  effectiveStatus,
  type IssuanceTransactionRow,
  offerFor,
  type SealedOffer,
} from "../issuance-transaction-dto";
import { createdOffers } from "./created-offers";

/** The credential offer behind an offer URI (by reference), while the transaction is pending. */
export async function credentialOfferByHandle(
  deps: { config: CoreConfig; secretBox: SecretBox },
  sql: FastSql,
  issuerId: string,
  handle: string,
) {
  const remembered = createdOffers.take(hashSecret(handle), issuerId);
  if (remembered) return remembered;
  const { rows } = await sql.query<IssuanceTransactionRow & { codeRedeemedAt: Date | null }>(
    `SELECT * FROM "IssuanceTransaction" WHERE "offerHandleHash" = $1`,
    [hashSecret(handle)],
  );
  const row = rows[0];
  if (!row || row.issuerId !== issuerId || !row.offerCipher || effectiveStatus(row) !== "pending")
    return null;
  if (row.codeRedeemedAt) return null;
  const sealed = JSON.parse(deps.secretBox.open(row.offerCipher, row.id)) as SealedOffer;
  return offerFor(deps.config, row, sealed);
}
