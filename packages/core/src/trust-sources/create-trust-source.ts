import { X509Certificate } from "node:crypto";
import {
  DEFAULT_REFRESH_INTERVAL_SECONDS,
  type TCreateTrustSourceRequest,
  type TTrustSource,
} from "@cred/contracts/trust-sources";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import { newId } from "../shared/ids";
import { assertPublicHttpsUrl, UrlPolicyViolation } from "../shared/network-policy";
import type { TenantScope } from "../shared/principal";
import { fetchTrustSourceLists, RefreshFailure } from "./fetch-trust-source-lists";
import { trustListRefused } from "./refresh-trust-source";
import { earliestNextUpdate } from "./stored-lists";
import { toTrustSourceDto } from "./trust-source-dto";
import { recordTrustSourceRefresh } from "./trust-source-refreshes";
import { trustSourceRepository as repo } from "./trust-source-repository";

type CreateDeps = Pick<AppDeps, "config" | "metrics">;

/** Refuses a list URL that is not public https (400 TrustSourceUrlNotAllowed); returns it normalised. */
export async function assertTrustSourceUrlAllowed(
  url: string,
  config: CreateDeps["config"],
): Promise<string> {
  try {
    const checked = await assertPublicHttpsUrl(url, {
      allowLoopbackHttp: config.developmentMode,
      allowedHosts: config.webhookAllowedHosts,
    });
    return checked.url.href;
  } catch (error) {
    if (!(error instanceof UrlPolicyViolation)) throw error;
    throw new DomainError("TrustSourceUrlNotAllowed", `The list URL is not allowed: ${error.message}`, [
      { code: error.reason, target: "url", message: error.message },
    ]);
  }
}

/** The signer certificates as normalised PEM; 400 InvalidCertificate for one that does not parse. */
export function parseSignerCertificates(pems: readonly string[]): string[] {
  return pems.map((pem, i) => {
    try {
      return new X509Certificate(pem).toString();
    } catch {
      throw new DomainError("InvalidCertificate", "A signer certificate is not an X.509 certificate.", [
        {
          code: "InvalidCertificate",
          target: `signerCertificates.${i}`,
          message: "Give one PEM-encoded X.509 certificate.",
        },
      ]);
    }
  });
}

/**
 * Creates a trust source after fetching and verifying its list once: a list that cannot be fetched, or
 * whose signature or signer does not verify against the given certificates, is refused (422
 * TrustListRefused) and nothing is stored.
 */
export async function createTrustSource(
  db: UnitOfWork,
  scope: TenantScope,
  deps: CreateDeps,
  input: TCreateTrustSourceRequest,
): Promise<TTrustSource> {
  const url = await assertTrustSourceUrlAllowed(input.url, deps.config);
  const signerCertificates = parseSignerCertificates(input.signerCertificates);
  const refreshIntervalSeconds = input.refreshIntervalSeconds ?? DEFAULT_REFRESH_INTERVAL_SECONDS;
  const now = new Date();
  let lists: Awaited<ReturnType<typeof fetchTrustSourceLists>>;
  try {
    lists = await fetchTrustSourceLists(deps.config, { kind: input.kind, url, signerCertificates }, [], now);
  } catch (failure) {
    if (!(failure instanceof RefreshFailure)) throw failure;
    deps.metrics.trustSourceRefreshed("failed", failure.error.code);
    throw trustListRefused(failure.error);
  }
  deps.metrics.trustSourceRefreshed("succeeded");
  const nextUpdate = earliestNextUpdate(lists);
  const byInterval = now.getTime() + refreshIntervalSeconds * 1000;
  const row = await db.transaction(async (tx) => {
    const created = await repo.create(tx, {
      id: newId("ts"),
      ...scope,
      kind: input.kind,
      url,
      description: input.description ?? null,
      signerCertificates,
      refreshIntervalSeconds,
      lists,
      listsFetchedAt: now,
      listsNextUpdate: nextUpdate,
      lastRefreshAt: now,
      lastError: null,
      nextRefreshAt: new Date(
        Math.max(now.getTime() + 60_000, Math.min(byInterval, nextUpdate?.getTime() ?? byInterval)),
      ),
    });
    await recordTrustSourceRefresh(tx, scope, {
      trustSourceId: created.id,
      at: now,
      trigger: "create",
      error: null,
      lists,
    });
    return created;
  });
  return toTrustSourceDto(row, now);
}
