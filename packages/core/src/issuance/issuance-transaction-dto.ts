import { INVOCATION_SCHEMES, type Invocation } from "@cred/contracts/invocation";
import type { IssuanceStatus, TIssuanceTransaction } from "@cred/contracts/issuance";
import { buildCredentialOffer, credentialOfferLink } from "@cred/oid4vc";
import { issuerUrls } from "../issuers";
import type { CoreConfig } from "../shared/context";
import type { SecretBox } from "../shared/secret-box";

export interface IssuanceTransactionRow {
  id: string;
  status: string;
  issuerId: string;
  configurationIdentifier: string;
  offerBy: string;
  offerCipher: string | null;
  txCodeSpec: unknown;
  expiresAt: Date;
  credentialId: string | null;
  callbackReference: string | null;
  externalSubjectReference: string | null;
  createdAt: Date;
  completedAt: Date | null;
  cancelledAt: Date | null;
  deferred: boolean;
  claimsSuppliedAt: Date | null;
  deferredAt: Date | null;
}

/** The offer's secrets, sealed on the row: one grant's (pre-authorized code or issuer_state) and the handle. */
export type SealedOffer = { offerHandle: string; invocation?: Invocation } & (
  | { preAuthorizedCode: string }
  | { issuerState: string }
);

/** The state a caller sees: a pending transaction past its expiry reads as expired. */
export function effectiveStatus(
  row: Pick<IssuanceTransactionRow, "status" | "expiresAt">,
  now = Date.now(),
): IssuanceStatus {
  if (row.status === "pending" && row.expiresAt.getTime() <= now) return "expired";
  return row.status as IssuanceStatus;
}

export function offerFor(
  config: Pick<CoreConfig, "publicBaseUrl">,
  row: Pick<IssuanceTransactionRow, "issuerId" | "configurationIdentifier" | "txCodeSpec">,
  sealed: SealedOffer,
) {
  const urls = issuerUrls(config, row.issuerId);
  const txCode = row.txCodeSpec as {
    input_mode: "numeric" | "text";
    length: number;
    description?: string;
  } | null;
  const offered = {
    credentialIssuer: urls.credentialIssuer,
    configurationIds: [row.configurationIdentifier],
  };
  if ("issuerState" in sealed) return buildCredentialOffer({ ...offered, issuerState: sealed.issuerState });
  return buildCredentialOffer({
    ...offered,
    preAuthorizedCode: sealed.preAuthorizedCode,
    ...(txCode ? { txCode } : {}),
  });
}

/**
 * The transaction resource. The offer link and URI are handed only to callers that may issue
 * (`withOffer`): while pending they are a bearer credential for the credential and its claims.
 */
export function toIssuanceTransactionDto(
  deps: { config: Pick<CoreConfig, "publicBaseUrl" | "developmentMode">; secretBox: SecretBox },
  row: IssuanceTransactionRow,
  txCode: string | null = null,
  withOffer = true,
): TIssuanceTransaction {
  const status = effectiveStatus(row);
  let credentialOffer: string | null = null;
  let credentialOfferUri: string | null = null;
  if (withOffer && status === "pending" && row.offerCipher) {
    const sealed = JSON.parse(deps.secretBox.open(row.offerCipher, row.id)) as SealedOffer;
    const scheme = INVOCATION_SCHEMES.offer[sealed.invocation ?? "openid"];
    if (row.offerBy === "reference") {
      credentialOfferUri = issuerUrls(deps.config, row.issuerId).offer(sealed.offerHandle);
      credentialOffer = credentialOfferLink({ offerUri: credentialOfferUri }, scheme, {
        allowHttp: deps.config.developmentMode,
      });
    } else {
      credentialOffer = credentialOfferLink({ offer: offerFor(deps.config, row, sealed) }, scheme);
    }
  }
  return {
    id: row.id,
    status,
    issuerId: row.issuerId,
    credentialConfiguration: row.configurationIdentifier,
    credentialOffer,
    credentialOfferUri,
    txCode,
    expiresAt: row.expiresAt.toISOString(),
    credentialId: row.credentialId,
    callbackReference: row.callbackReference,
    externalSubjectReference: row.externalSubjectReference,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    cancelledAt: row.cancelledAt?.toISOString() ?? null,
    deferral: row.deferred
      ? {
          claimsSuppliedAt: row.claimsSuppliedAt?.toISOString() ?? null,
          walletWaitingSince: row.deferredAt?.toISOString() ?? null,
        }
      : null,
  };
}
