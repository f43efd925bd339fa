import type { TClaimDefinition } from "@cred/contracts/credential-configurations";
import type { Db, UnitOfWork } from "@cred/db";
import { MemoCache } from "../shared/memo-cache";
import type { TenantScope } from "../shared/principal";

/**
 * Configuration reference data on the issuance hot path, cached per process. Versions are immutable once
 * created and grants are only ever added: only final states are cached, and a miss is always read from
 * the database. A configuration's row changes (its active version), so it is kept for `ROW_TTL_MS` only,
 * and dropped at once in the process that changes it. Active issuer rows: `activeIssuerCache`.
 */
type ConfigurationRow = NonNullable<Awaited<ReturnType<Db["credentialConfiguration"]["findUnique"]>>>;

/** How long another process may go on creating transactions on a configuration's previous version. */
const ROW_TTL_MS = 2_000;
const configurations = new MemoCache<ConfigurationRow | null>(10_000, ROW_TTL_MS);
const configurationsById = new MemoCache<ConfigurationRow | null>(10_000, ROW_TTL_MS);
const versions = new MemoCache<TClaimDefinition[] | null>();
const grants = new MemoCache<boolean>();

export const configurationCatalog = {
  configuration(db: UnitOfWork, scope: TenantScope, identifier: string) {
    return configurations.get(`${scope.tenantId}|${scope.environment}|${identifier}`, () =>
      db.prisma.credentialConfiguration.findUnique({
        where: { tenantId_environment_identifier: { ...scope, identifier } },
      }),
    );
  },
  configurationById(db: UnitOfWork, id: string) {
    return configurationsById.get(id, () => db.prisma.credentialConfiguration.findUnique({ where: { id } }));
  },
  claims(db: UnitOfWork, configurationId: string, version: number) {
    return versions.get(`${configurationId}|${version}`, async () => {
      const row = await db.prisma.credentialConfigurationVersion.findUnique({
        where: { configurationId_version: { configurationId, version } },
      });
      return row ? (row.claims as TClaimDefinition[]) : null;
    });
  },
  isGranted(db: UnitOfWork, issuerId: string, configurationId: string) {
    return grants.get(
      `${issuerId}|${configurationId}`,
      async () =>
        (await db.prisma.issuerConfigurationGrant.findUnique({
          where: { issuerId_configurationId: { issuerId, configurationId } },
        })) !== null,
      (granted) => granted,
    );
  },
  forgetConfiguration(scope: TenantScope, identifier: string, id: string) {
    configurations.delete(`${scope.tenantId}|${scope.environment}|${identifier}`);
    configurationsById.delete(id);
  },
};
