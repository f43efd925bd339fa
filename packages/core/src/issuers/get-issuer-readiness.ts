import type { TIssuerReadiness, TReadinessItem } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import { isKeyCustodyUnavailable, type KeyCustody } from "../shared/key-custody";
import type { TenantScope } from "../shared/principal";
import type { SecretBox } from "../shared/secret-box";
import { credentialEncryptionOf, credentialEncryptionSealContext } from "./credential-encryption-key";
import { findVisibleIssuer, type IssuerCaller, scopeOfCaller } from "./issuer-caller";
import { storedKeyOf } from "./issuer-key-custody";
import {
  acceptedRetiredEncryptionKeyOf,
  currentEncryptionKeyOf,
  currentSigningKeyOf,
  type IssuerKeyRow,
  nextSigningKeyRowOf,
  statusListSigningKeyOf,
} from "./issuer-keys";
import { type IssuerRow, issuerRepository } from "./issuer-repository";
import { relyingPartyCertificateExpiry } from "./relying-party-certificate-expiry";

export interface ReadinessDeps {
  config: Pick<CoreConfig, "publicBaseUrl" | "developmentMode">;
  secretBox: SecretBox;
  keyCustody: KeyCustody;
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

/** What a key's sealed private JWK is bound to: the issuer id, or its request encryption context. */
const sealContextOf = (issuer: IssuerRow, key: IssuerKeyRow) =>
  key.purpose === "credential_request_encryption" ? credentialEncryptionSealContext(issuer.id) : issuer.id;

/** True when the sealed private key opens with the current master key and matches the public key. */
function sealedKeyUsable(secretBox: SecretBox, issuer: IssuerRow, key: IssuerKeyRow): boolean {
  try {
    const jwk = JSON.parse(secretBox.open(key.privateKeyCipher!, sealContextOf(issuer, key))) as Record<
      string,
      unknown
    >;
    const publicJwk = key.publicJwk as Record<string, unknown>;
    return typeof jwk.d === "string" && jwk.kid === key.kid && jwk.x === publicJwk.x && jwk.y === publicJwk.y;
  } catch {
    return false;
  }
}

/**
 * Whether the key is usable now and where it lives: a sealed key opens with the master key; a key a
 * provider holds (an HSM) is present in a reachable store, whose public key matches the published one.
 */
async function keyCheck(
  deps: ReadinessDeps,
  issuer: IssuerRow,
  key: IssuerKeyRow,
): Promise<{ usable: boolean; location: string; problem?: string }> {
  if ((key.provider ?? "software") === "software") {
    const usable = sealedKeyUsable(deps.secretBox, issuer, key);
    return {
      usable,
      location: "the database, sealed under the master key",
      ...(usable
        ? {}
        : {
            problem:
              "it cannot be opened with the current master key; restore the master key the issuer was created with",
          }),
    };
  }
  if (!deps.keyCustody.has(key.provider!))
    return {
      usable: false,
      location: `the '${key.provider}' key provider`,
      problem: "that provider is not configured in this process",
    };
  const provider = deps.keyCustody.provider(key.provider);
  const status = await provider.status(storedKeyOf(key));
  if (!status.reachable)
    return {
      usable: false,
      location: status.location,
      problem: `the key store is unreachable (${status.reason ?? "no answer"})`,
    };
  try {
    const stored = storedKeyOf(key);
    const publicJwk = await provider.publicJwk(stored);
    const published = key.publicJwk as Record<string, unknown>;
    if (publicJwk.x !== published.x || publicJwk.y !== published.y)
      return {
        usable: false,
        location: status.location,
        problem: "the key in the store is not the published one",
      };
    return { usable: true, location: status.location };
  } catch (error) {
    return {
      usable: false,
      location: status.location,
      problem: isKeyCustodyUnavailable(error)
        ? "the key store is unreachable"
        : "the key is not in the store",
    };
  }
}

/** The `signing-key` item: the current key (and a prepared next key), each usable, and where each lives. */
async function signingKeyItem(deps: ReadinessDeps, issuer: IssuerRow) {
  const current = currentSigningKeyOf(issuer);
  const nextRow = nextSigningKeyRowOf(issuer);
  const currentCheck = await keyCheck(deps, issuer, current);
  const nextCheck = nextRow ? await keyCheck(deps, issuer, nextRow) : null;
  const describe = (
    label: string,
    key: IssuerKeyRow,
    check: { usable: boolean; location: string; problem?: string },
  ) =>
    check.usable
      ? `${label} ES256 key ${key.kid} is held in ${check.location} and usable.`
      : `${label} ES256 key ${key.kid} (held in ${check.location}) cannot be used: ${check.problem}.`;
  return {
    satisfied: currentCheck.usable && (nextCheck?.usable ?? true),
    detail: [
      describe("The current", current, currentCheck),
      ...(nextRow && nextCheck ? [describe("The prepared next", nextRow, nextCheck)] : []),
    ].join(" "),
  };
}

/**
 * The `status-list-signing-key` item, for an issuer with a separate status list signing key: the key is
 * usable and where it lives (outstanding while its token is unreachable: status list tokens cannot be
 * signed afresh, and revocations would not reach wallets). Null without a separate key.
 */
async function statusListSigningKeyItem(deps: ReadinessDeps, issuer: IssuerRow) {
  const key = statusListSigningKeyOf(issuer);
  if (!key) return null;
  const check = await keyCheck(deps, issuer, key);
  return {
    satisfied: check.usable,
    detail: check.usable
      ? `The separate status list ES256 key ${key.kid} is held in ${check.location} and usable.`
      : `The separate status list ES256 key ${key.kid} (held in ${check.location}) cannot be used: ${check.problem}; status list tokens cannot be signed afresh.`,
  };
}

/**
 * The `credential-request-encryption-key` item, for an issuer that offers credential encryption: the
 * current request encryption key (and a replaced one still decrypting) is usable and where each lives
 * (outstanding while its token is unreachable: encrypted credential requests cannot be decrypted).
 * Null without encryption.
 */
async function credentialRequestEncryptionKeyItem(deps: ReadinessDeps, issuer: IssuerRow) {
  if (!credentialEncryptionOf(issuer)) return null;
  const current = currentEncryptionKeyOf(issuer)!;
  const previous = acceptedRetiredEncryptionKeyOf(issuer);
  const checks = [
    { label: "The current", key: current, check: await keyCheck(deps, issuer, current) },
    ...(previous
      ? [{ label: "The replaced", key: previous, check: await keyCheck(deps, issuer, previous) }]
      : []),
  ];
  return {
    satisfied: checks.every(({ check }) => check.usable),
    detail: checks
      .map(({ label, key, check }) =>
        check.usable
          ? `${label} ECDH-ES request encryption key ${key.kid} is held in ${check.location} and usable.`
          : `${label} ECDH-ES request encryption key ${key.kid} (held in ${check.location}) cannot be used: ${check.problem}; encrypted credential requests cannot be decrypted.`,
      )
      .join(" "),
  };
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
  const signingKey = await signingKeyItem(deps, issuer);
  const statusListSigningKey = await statusListSigningKeyItem(deps, issuer);
  const requestEncryptionKey = await credentialRequestEncryptionKeyItem(deps, issuer);
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
    item({ id: "signing-key", title: "Signing key present", ...signingKey }),
    ...(statusListSigningKey
      ? [
          item({
            id: "status-list-signing-key",
            title: "Status list signing key present",
            ...statusListSigningKey,
          }),
        ]
      : []),
    ...(requestEncryptionKey
      ? [
          item({
            id: "credential-request-encryption-key",
            title: "Credential request encryption key present",
            ...requestEncryptionKey,
          }),
        ]
      : []),
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
  return {
    issuerId: issuer.id,
    ready: items.every((i) => i.status === "satisfied"),
    items,
    relyingPartyCertificates: await relyingPartyCertificateExpiry(db, deps.keyCustody, scope),
  };
}

export async function getIssuerReadiness(
  deps: ReadinessDeps & { db: UnitOfWork },
  caller: IssuerCaller,
  issuerId: string,
): Promise<TIssuerReadiness> {
  const issuer = await findVisibleIssuer(deps.db, caller, issuerId);
  return assessIssuerReadiness(deps, deps.db, scopeOfCaller(caller), issuer);
}
