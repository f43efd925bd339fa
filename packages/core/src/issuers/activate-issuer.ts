import type { TIssuer } from "@cred/contracts/issuers";
import { DomainError } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import { assessIssuerReadiness } from "./get-issuer-readiness";
import { findVisibleIssuer, type IssuerCaller, scopeOfCaller } from "./issuer-caller";
import { issuerRepository } from "./issuer-repository";

/**
 * Activates a draft issuer once every readiness item is satisfied (409 IssuerNotReady with the
 * outstanding items otherwise) and records `issuer.activated` in the same transaction. Activating an
 * active issuer returns it unchanged.
 */
export async function activateIssuer(
  deps: IssuerDeps,
  caller: IssuerCaller,
  issuerId: string,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  return deps.db.transaction(async (tx) => {
    const issuer = await findVisibleIssuer(tx, caller, issuerId);
    if (issuer.status === "active") return loadIssuerDto(tx, deps.config, scope, issuer);

    const readiness = await assessIssuerReadiness(deps, tx, scope, issuer);
    if (!readiness.ready) {
      const outstanding = readiness.items.filter((i) => i.status === "outstanding");
      throw new DomainError(
        "IssuerNotReady",
        `The issuer is not ready to be activated: ${outstanding.map((i) => i.title.toLowerCase()).join("; ")} outstanding. See GET ${`/management/issuers/${issuer.id}/readiness`}.`,
        outstanding.map((i) => ({ code: "ReadinessItemOutstanding", target: i.id, message: i.detail })),
      );
    }

    const activatedAt = new Date();
    const transitioned = await issuerRepository.activate(tx, scope, issuer.id, activatedAt);
    const current = await findVisibleIssuer(tx, caller, issuer.id);
    const dto = await loadIssuerDto(tx, deps.config, scope, current);
    if (transitioned) {
      await emitEvent(tx, scope, "issuer.activated", {
        issuerId: dto.id,
        organisationReference: dto.organisationReference,
        credentialIssuer: dto.credentialIssuer,
        activatedAt: dto.activatedAt,
      });
    }
    return dto;
  });
}
