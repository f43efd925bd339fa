import type { Db } from "@cred/db";
import type { TClaimDefinition } from "../credential-configurations/credential-configuration.schema";
import { MemoCache } from "../shared/memo-cache";
import type { TenantScope } from "../shared/principal";

/**
 * Reference data on the issuance hot path, cached per process. Versions are immutable once created,
 * grants are only ever added, and issuer activation is one-way: only final states are cached, and a miss
 * is always read from the database. Two rows change: a configuration's (its active version) and an
 * active issuer's (a signing key rotation, settings), so each is kept for `ROW_TTL_MS` only, and dropped
 * at once in the process that changes it.
 */
type ConfigurationRow = NonNullable<Awaited<ReturnType<Db["credentialConfiguration"]["findUnique"]>>>;
type IssuerRow = NonNullable<Awaited<ReturnType<Db["issuer"]["findUnique"]>>>;

/**
 * How long another process may go on with a row another process changed: signing with an issuer's
 * replaced key, or creating transactions on a configuration's previous version.
 */
const ROW_TTL_MS = 2_000;
const configurations = new MemoCache<ConfigurationRow | null>(10_000, ROW_TTL_MS);
const configurationsById = new MemoCache<ConfigurationRow | null>(10_000, ROW_TTL_MS);
const versions = new MemoCache<TClaimDefinition[] | null>();
const grants = new MemoCache<boolean>();
const activeIssuers = new MemoCache<IssuerRow | null>(10_000, ROW_TTL_MS);

export const issuanceCatalog = {
  configuration(db: Db, scope: TenantScope, identifier: string) {
    return configurations.get(`${scope.tenantId}|${scope.environment}|${identifier}`, () =>
      db.credentialConfiguration.findUnique({
        where: { tenantId_environment_identifier: { ...scope, identifier } },
      }),
    );
  },
  configurationById(db: Db, id: string) {
    return configurationsById.get(id, () => db.credentialConfiguration.findUnique({ where: { id } }));
  },
  claims(db: Db, configurationId: string, version: number) {
    return versions.get(`${configurationId}|${version}`, async () => {
      const row = await db.credentialConfigurationVersion.findUnique({
        where: { configurationId_version: { configurationId, version } },
      });
      return row ? (row.claims as TClaimDefinition[]) : null;
    });
  },
  isGranted(db: Db, issuerId: string, configurationId: string) {
    return grants.get(
      `${issuerId}|${configurationId}`,
      async () =>
        (await db.issuerConfigurationGrant.findUnique({
          where: { issuerId_configurationId: { issuerId, configurationId } },
        })) !== null,
      (granted) => granted,
    );
  },
  forgetConfiguration(scope: TenantScope, identifier: string, id: string) {
    configurations.delete(`${scope.tenantId}|${scope.environment}|${identifier}`);
    configurationsById.delete(id);
  },
  forgetIssuer(issuerId: string) {
    activeIssuers.delete(issuerId);
  },
  /** The issuer row once it is active (then cached); a draft or unknown issuer is read every time. */
  issuer(db: Db, issuerId: string) {
    return activeIssuers.get(
      issuerId,
      () => db.issuer.findUnique({ where: { id: issuerId } }),
      (row) => row?.status === "active",
    );
  },
};
