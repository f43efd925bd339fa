import { randomInt } from "node:crypto";
import {
  type TCreateIssuanceTransactionRequest,
  type TIssuanceTransaction,
  zDelivery,
} from "@cred/contracts/issuance";
import type { UnitOfWork } from "@cred/db";
import { hashTxCode } from "../authorization-server";
import { configurationCatalog } from "../credential-configurations";
import { activeIssuer } from "../issuers";
import { claimPattern } from "../shared/claim-pattern";
import type { AppDeps, RequestContext } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { newId, randomToken } from "../shared/ids";
import type { Principal, TenantScope } from "../shared/principal";
import { hashSecret } from "../shared/secret-box";
import { issuanceRepository } from "./issuance-repository";
import { offerFor, type SealedOffer, toIssuanceTransactionDto } from "./issuance-transaction-dto";
import { validateClaims } from "./validate-claims";
import { createdOffers } from "./wallet/created-offers";

const NUMERIC = "0123456789";
/** How long a deferred transaction waits for its claims after the wallet asked, unless told otherwise. */
const DEFAULT_DEFERRED_WAIT_SECONDS = 3 * 86_400;
const TEXT = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

function generateTxCode(inputMode: "numeric" | "text", length: number): string {
  const alphabet = inputMode === "numeric" ? NUMERIC : TEXT;
  let code = "";
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/**
 * The issuer a call acts for: an issuer-bound key's own issuer (naming another → 403), otherwise the
 * named `issuerId` (`requireExplicitIssuer`: Credentials_Issue must name it even when bound).
 */
function resolveIssuerId(
  principal: Principal,
  requested: string | null | undefined,
  requireExplicit: boolean,
): string {
  if (principal.issuerId) {
    if (requested && requested !== principal.issuerId) {
      throw new DomainError("IssuerBindingMismatch", "This API key is bound to another issuer.", [
        {
          code: "IssuerBindingMismatch",
          target: "issuerId",
          message: "Omit issuerId or name the key's issuer.",
        },
      ]);
    }
    if (requireExplicit && !requested) throw issuerRequired();
    return principal.issuerId;
  }
  if (!requested) throw issuerRequired();
  return requested;
}

const issuerRequired = () =>
  new DomainError("IssuerRequired", "Name the issuer with issuerId.", [
    { code: "Required", target: "issuerId", message: "issuerId is required for this call." },
  ]);

/**
 * Creates a pending issuance transaction and its OpenID4VCI credential offer: a pre-authorized code, or
 * an `issuer_state` for the authorization code flow.
 */
export async function createIssuanceTransaction(
  deps: AppDeps,
  db: UnitOfWork,
  principal: Principal,
  input: TCreateIssuanceTransactionRequest,
  options: { requireExplicitIssuer: boolean },
): Promise<TIssuanceTransaction> {
  const scope: TenantScope = { tenantId: principal.tenantId, environment: principal.environment };
  const issuerId = resolveIssuerId(principal, input.issuerId, options.requireExplicitIssuer);
  const configuration = await configurationCatalog.configuration(
    db,
    deps.caches,
    scope,
    input.credentialConfiguration,
  );
  if (!configuration) throw notFound("The credential configuration");
  const issuer = await activeIssuer(db, deps.caches, issuerId);
  if (!issuer || issuer.tenantId !== scope.tenantId || issuer.environment !== scope.environment) {
    throw notFound("The issuer");
  }
  if (issuer.status !== "active") {
    throw new DomainError(
      "IssuerNotActive",
      "The issuer is not active; check its readiness and activate it first.",
    );
  }
  if (!(await configurationCatalog.isGranted(db, deps.caches, issuerId, configuration.id))) {
    throw new DomainError(
      "IssuerNotAuthorised",
      `The issuer is not authorised for the credential configuration '${configuration.identifier}'.`,
    );
  }
  const delivery = input.delivery ?? zDelivery.parse({});
  // A deferred transaction gets its claims later (IssuanceTransactions_SupplyClaims), checked then.
  let claims: Record<string, unknown> | null = null;
  if (delivery.deferred) {
    if (input.claims != null) {
      throw new DomainError("ValidationFailed", "A deferred transaction gets its claims later.", [
        {
          code: "NotApplicable",
          target: "claims",
          message:
            "Omit claims with delivery.deferred, and supply them with IssuanceTransactions_SupplyClaims.",
        },
      ]);
    }
  } else {
    if (delivery.deferredWaitSeconds !== undefined) {
      throw new DomainError(
        "ValidationFailed",
        "deferredWaitSeconds applies to deferred transactions only.",
        [
          {
            code: "NotApplicable",
            target: "delivery.deferredWaitSeconds",
            message: "Omit deferredWaitSeconds, or set delivery.deferred.",
          },
        ],
      );
    }
    claims = input.claims ?? {};
    const definitions =
      (await configurationCatalog.claims(db, deps.caches, configuration.id, configuration.activeVersion)) ??
      [];
    validateClaims(definitions, claims, (pattern) => claimPattern(deps.caches, pattern));
  }

  const codeFlow = delivery.grant === "authorizationCode";
  if (codeFlow && delivery.txCode) {
    throw new DomainError("ValidationFailed", "A txCode applies to the pre-authorized code grant only.", [
      {
        code: "NotApplicable",
        target: "delivery.txCode",
        message: "Omit txCode with grant authorizationCode, or use grant preAuthorizedCode.",
      },
    ]);
  }
  const id = newId("itx");
  const grantSecret = randomToken(32);
  const sealed: SealedOffer = {
    ...(codeFlow ? { issuerState: grantSecret } : { preAuthorizedCode: grantSecret }),
    offerHandle: randomToken(24),
    // Kept with the offer (sealed), since the link is rebuilt on every read; absent means openid.
    ...(delivery.invocation === "haip" ? { invocation: "haip" as const } : {}),
  };
  const txCodeSpec = delivery.txCode
    ? {
        input_mode: delivery.txCode.inputMode,
        length: delivery.txCode.length,
        ...(delivery.txCode.description ? { description: delivery.txCode.description } : {}),
      }
    : null;
  const txCode = delivery.txCode ? generateTxCode(delivery.txCode.inputMode, delivery.txCode.length) : null;
  const lifetime = delivery.expiresInSeconds ?? deps.config.issuance.offerLifetimeSeconds;

  const now = new Date();
  const row = {
    id,
    ...scope,
    issuerId,
    configurationId: configuration.id,
    configurationIdentifier: configuration.identifier,
    configurationVersion: configuration.activeVersion,
    status: "pending",
    claimsCipher: claims ? deps.secretBox.seal(JSON.stringify(claims), id) : null,
    callbackReference: input.callbackReference ?? null,
    externalSubjectReference: input.externalSubjectReference ?? null,
    offerBy: delivery.offerBy,
    offerCipher: deps.secretBox.seal(JSON.stringify(sealed), id),
    offerHandleHash: hashSecret(sealed.offerHandle),
    preAuthorizedCodeHash: codeFlow ? null : hashSecret(grantSecret),
    issuerStateHash: codeFlow ? hashSecret(grantSecret) : null,
    txCodeHash: txCode ? hashTxCode(deps.secretBox, id, txCode) : null,
    txCodeSpec,
    expiresAt: new Date(now.getTime() + lifetime * 1000),
    createdAt: now,
    completedAt: null,
    cancelledAt: null,
    credentialId: null,
    deferred: delivery.deferred,
    deferredWaitSeconds: delivery.deferred
      ? (delivery.deferredWaitSeconds ?? DEFAULT_DEFERRED_WAIT_SECONDS)
      : null,
    claimsSuppliedAt: null,
    deferredAt: null,
  };
  await issuanceRepository.insertWithEvent(db, row, {
    scope,
    type: "issuance.transaction.created",
    data: {
      transactionId: id,
      issuerId,
      credentialConfiguration: configuration.identifier,
      status: "pending",
      callbackReference: row.callbackReference,
      externalSubjectReference: row.externalSubjectReference,
    },
  });
  if (delivery.offerBy === "reference") {
    // Remembered once committed (at once at the root; after an Idempotency-Key transaction commits).
    const offer = offerFor(deps.config, row, sealed);
    db.afterCommit(() =>
      createdOffers.remember(deps.caches, row.offerHandleHash, {
        transactionId: id,
        issuerId,
        expiresAt: row.expiresAt,
        offer,
      }),
    );
  }

  return toIssuanceTransactionDto(deps, row, txCode);
}

/**
 * The procedure body shared by IssuanceTransactions_Create and Credentials_Issue: the same operation
 * (each under its own Idempotency-Key scope, its operationId), differing only in whether `issuerId`
 * must be named.
 */
export function issueThroughTransaction(options: { requireExplicitIssuer: boolean }) {
  return ({
    ctx,
    input,
  }: {
    ctx: RequestContext & { principal: Principal };
    input: TCreateIssuanceTransactionRequest;
  }) => createIssuanceTransaction(ctx.deps, ctx.db, ctx.principal, input, options).then((data) => ({ data }));
}
