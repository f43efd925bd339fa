import type { TIssuerReadiness, TReadinessItem } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import type { SecretBox } from "../shared/secret-box";
import { findVisibleIssuer, type IssuerCaller, scopeOfCaller } from "./issuer-caller";
import { currentSigningKeyOf } from "./issuer-keys";
import { type IssuerRow, issuerRepository } from "./issuer-repository";

export interface ReadinessDeps {
  config: Pick<CoreConfig, "publicBaseUrl" | "developmentMode">;
  secretBox: SecretBox;
}

type Check = Omit<TReadinessItem, "status" | "detail" | "action"> & {
  satisfied: boolean;
  detail: string;
  action?: TReadinessItem["action"];
};

function item(check: Check): TReadinessItem {
  const { satisfied, action, ...rest } = check;
  return {
    ...rest,
    status: satisfied ? "satisfied" : "outstanding",
    ...(satisfied || !action ? {} : { action }),
  };
}

/** True when the sealed private key opens with the current master key and matches the public key. */
function signingKeyUsable(secretBox: SecretBox, issuer: IssuerRow): boolean {
  try {
    const key = currentSigningKeyOf(issuer);
    const jwk = JSON.parse(secretBox.open(key.privateKeyCipher!, issuer.id)) as Record<string, unknown>;
    const publicJwk = key.publicJwk as Record<string, unknown>;
    return typeof jwk.d === "string" && jwk.kid === key.kid && jwk.x === publicJwk.x && jwk.y === publicJwk.y;
  } catch {
    return false;
  }
}

/**
 * The readiness checklist (DESIGN §4): one item per requirement, in a fixed order. Display metadata
 * counts as complete with a display name and at least one `display` entry (locale + name), because
 * that is what wallets show from the credential issuer metadata.
 */
export async function assessIssuerReadiness(
  deps: ReadinessDeps,
  db: UnitOfWork,
  scope: TenantScope,
  issuer: IssuerRow,
): Promise<TIssuerReadiness> {
  const issuerPath = `/management/issuers/${issuer.id}`;
  const [organisation, activeConfigurations, statusList] = await Promise.all([
    issuerRepository.countOrganisation(db, scope, issuer.organisationId),
    issuerRepository.countActiveConfigurations(db, scope, issuer.id),
    issuerRepository.hasOpenStatusList(db, scope, issuer.id),
  ]);
  const display = (issuer.display as { locale?: string; name?: string }[]) ?? [];
  const displayComplete =
    issuer.displayName.trim() !== "" && display.some((entry) => !!entry.locale && !!entry.name);
  const { publicBaseUrl, developmentMode } = deps.config;
  const httpsBaseUrl = publicBaseUrl.startsWith("https://");

  const items = [
    item({
      id: "organisation",
      title: "Organisation present",
      satisfied: organisation > 0,
      detail:
        organisation > 0
          ? "The issuer belongs to an existing organisation."
          : "The issuer's organisation no longer exists; assign an existing one.",
      action: {
        operationId: "Issuers_Update",
        method: "PATCH",
        path: issuerPath,
        hint: 'Send {"organisationReference":"<reference>"}.',
      },
    }),
    item({
      id: "display-metadata",
      title: "Display metadata complete",
      satisfied: displayComplete,
      detail: displayComplete
        ? `Display metadata is given for ${display.length} locale(s).`
        : "Add at least one display entry with a locale and a name; wallets show it to holders.",
      action: {
        operationId: "Issuers_Update",
        method: "PATCH",
        path: issuerPath,
        hint: 'Send {"display":[{"locale":"en","name":"<name shown in wallets>"}]}.',
      },
    }),
    item({
      id: "signing-key",
      title: "Signing key present",
      satisfied: signingKeyUsable(deps.secretBox, issuer),
      detail: signingKeyUsable(deps.secretBox, issuer)
        ? `ES256 key ${currentSigningKeyOf(issuer).kid} is present and usable.`
        : "The signing key cannot be opened with the current master key; restore the master key the issuer was created with.",
    }),
    item({
      id: "active-credential-configuration",
      title: "At least one active credential configuration",
      satisfied: activeConfigurations > 0,
      detail:
        activeConfigurations > 0
          ? `${activeConfigurations} active credential configuration(s) authorised for this issuer.`
          : "Create a credential configuration for this issuer.",
      action: {
        operationId: "CredentialConfigurations_Create",
        method: "POST",
        path: "/management/credential-configurations",
        hint: `Send a configuration with "issuerId":"${issuer.id}".`,
      },
    }),
    item({
      id: "status-list",
      title: "Status list provisioned",
      satisfied: statusList,
      detail: statusList
        ? "A status list with free entries is provisioned for revocation."
        : "No status list with free entries is provisioned for this issuer.",
    }),
    item({
      id: "public-base-url",
      title:
        developmentMode && !httpsBaseUrl
          ? "Public base URL is http (development mode)"
          : "Public base URL uses https",
      satisfied: httpsBaseUrl || developmentMode,
      detail: httpsBaseUrl
        ? `The public base URL ${publicBaseUrl} uses https.`
        : developmentMode
          ? `The public base URL ${publicBaseUrl} is not https, which development mode allows.`
          : `The public base URL ${publicBaseUrl} is not https; wallets require https. Set PUBLIC_BASE_URL to an https origin.`,
    }),
  ];
  return { issuerId: issuer.id, ready: items.every((i) => i.status === "satisfied"), items };
}

export async function getIssuerReadiness(
  deps: ReadinessDeps & { db: UnitOfWork },
  caller: IssuerCaller,
  issuerId: string,
): Promise<TIssuerReadiness> {
  const issuer = await findVisibleIssuer(deps.db, caller, issuerId);
  return assessIssuerReadiness(deps, deps.db, scopeOfCaller(caller), issuer);
}
