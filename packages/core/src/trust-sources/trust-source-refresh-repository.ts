import { TRUST_SOURCE_REFRESHES_KEPT } from "@cred/contracts/trust-sources";
import { Prisma, type UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

type RefreshRecord = Omit<Prisma.TrustSourceRefreshUncheckedCreateInput, "failedLists"> & {
  failedLists: unknown[];
};

/** The refresh attempts of trust sources (TrustSources_ListRefreshes), the newest few per source. */
export const trustSourceRefreshRepository = {
  /** Records an attempt and deletes the ones past the newest TRUST_SOURCE_REFRESHES_KEPT of its source. */
  async record(db: UnitOfWork, record: RefreshRecord) {
    const { failedLists, ...columns } = record;
    await db.prisma.trustSourceRefresh.create({
      data: {
        ...columns,
        failedLists: failedLists.length > 0 ? (failedLists as Prisma.InputJsonValue) : Prisma.DbNull,
      },
    });
    const source = {
      tenantId: record.tenantId,
      environment: record.environment,
      trustSourceId: record.trustSourceId,
    };
    const oldestKept = await db.prisma.trustSourceRefresh.findFirst({
      where: source,
      orderBy: { id: "desc" },
      skip: TRUST_SOURCE_REFRESHES_KEPT - 1,
      select: { id: true },
    });
    if (oldestKept) {
      await db.prisma.trustSourceRefresh.deleteMany({ where: { ...source, id: { lt: oldestKept.id } } });
    }
  },
  /** A trust source's attempts, newest first, older than `beforeId` when given. */
  list(db: UnitOfWork, scope: TenantScope, trustSourceId: string, page: { beforeId?: string; take: number }) {
    return db.prisma.trustSourceRefresh.findMany({
      where: { ...scope, trustSourceId, ...(page.beforeId ? { id: { lt: page.beforeId } } : {}) },
      orderBy: { id: "desc" },
      take: page.take,
    });
  },
};

export type TrustSourceRefreshRow = Awaited<ReturnType<typeof trustSourceRefreshRepository.list>>[number];
