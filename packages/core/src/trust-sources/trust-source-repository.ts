import { Prisma, type UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

/** The JSON columns as Prisma writes them: a value, or SQL NULL for null; absent stays absent. */
function jsonColumns(data: { lists?: unknown; lastError?: unknown }) {
  const json = (value: unknown) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));
  return {
    ...(data.lists !== undefined ? { lists: json(data.lists) } : {}),
    ...(data.lastError !== undefined ? { lastError: json(data.lastError) } : {}),
  };
}

/** Trust sources are soft-deleted (policies may still name them); a deleted one reads as absent. */
const live = { deletedAt: null };

export const trustSourceRepository = {
  /** `lists` and `lastError` are stored as JSON; a null `lastError` is SQL NULL. */
  create(
    db: UnitOfWork,
    data: Omit<Prisma.TrustSourceUncheckedCreateInput, "lists" | "lastError"> & {
      lists: unknown;
      lastError: unknown;
    },
  ) {
    const { lists, lastError, ...columns } = data;
    return db.prisma.trustSource.create({ data: { ...columns, ...jsonColumns({ lists, lastError }) } });
  },
  findById(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.trustSource.findFirst({ where: { id, ...scope, ...live } });
  },
  /** The live trust sources of this tenant + environment among `ids`. */
  async existingIds(db: UnitOfWork, scope: TenantScope, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db.prisma.trustSource.findMany({
      where: { id: { in: ids }, ...scope, ...live },
      select: { id: true },
    });
    return new Set(rows.map((row) => row.id));
  },
  list(db: UnitOfWork, scope: TenantScope, page: { afterId?: string; take: number }) {
    return db.prisma.trustSource.findMany({
      where: { ...scope, ...live, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },
  async softDelete(db: UnitOfWork, scope: TenantScope, id: string, at: Date) {
    const { count } = await db.prisma.trustSource.updateMany({
      where: { id, ...scope, ...live },
      data: { deletedAt: at },
    });
    return count === 1;
  },
  /** Changes a live trust source; null when there is none (unknown, foreign or deleted). */
  async update(
    db: UnitOfWork,
    scope: TenantScope,
    id: string,
    changes: Pick<
      Prisma.TrustSourceUncheckedUpdateManyInput,
      | "signerCertificates"
      | "refreshIntervalSeconds"
      | "description"
      | "listsFetchedAt"
      | "listsNextUpdate"
      | "lastRefreshAt"
      | "nextRefreshAt"
    > & { lists?: unknown; lastError?: unknown },
  ) {
    const { lists, lastError, ...columns } = changes;
    const { count } = await db.prisma.trustSource.updateMany({
      where: { id, ...scope, ...live },
      data: { ...columns, ...jsonColumns({ lists, lastError }) },
    });
    return count === 1 ? this.findById(db, scope, id) : null;
  },
  /** Live sources whose scheduled refresh is due, oldest first, across tenants (the worker's sweep). */
  due(db: UnitOfWork, at: Date, take: number) {
    return db.prisma.trustSource.findMany({
      where: { ...live, nextRefreshAt: { lte: at } },
      orderBy: { nextRefreshAt: "asc" },
      take,
    });
  },
  /**
   * Live trust sources across tenants (the metrics' gauge): all, those whose last refresh failed, and
   * those whose last good copy has a list past its NextUpdate (or no copy).
   */
  async health(db: UnitOfWork, at: Date) {
    const [total, failing, pastNextUpdate] = await Promise.all([
      db.prisma.trustSource.count({ where: live }),
      db.prisma.trustSource.count({ where: { ...live, lastError: { not: Prisma.DbNull } } }),
      db.prisma.trustSource.count({
        where: { ...live, OR: [{ listsNextUpdate: null }, { listsNextUpdate: { lte: at } }] },
      }),
    ]);
    return { total, failing, pastNextUpdate };
  },
  /**
   * Live sources across tenants whose last good copy has a list past its NextUpdate, not notified yet
   * (few: a lapsed copy is an incident, and a successful refresh ends it).
   */
  async lapsedNotNotified(db: UnitOfWork, at: Date) {
    const rows = await db.prisma.trustSource.findMany({
      where: { ...live, listsNextUpdate: { lte: at } },
      select: {
        id: true,
        tenantId: true,
        environment: true,
        url: true,
        listsNextUpdate: true,
        expiryNotifiedFor: true,
      },
      orderBy: { listsNextUpdate: "asc" },
    });
    return rows.filter((row) => row.expiryNotifiedFor?.getTime() !== row.listsNextUpdate?.getTime());
  },
  /**
   * Records that the copy lapsing at `nextUpdate` was notified, only if no worker did first (and no
   * refresh replaced the copy meanwhile): true when this call recorded it.
   */
  async markExpiryNotified(db: UnitOfWork, id: string, nextUpdate: Date) {
    const { count } = await db.prisma.trustSource.updateMany({
      where: {
        id,
        ...live,
        listsNextUpdate: nextUpdate,
        OR: [{ expiryNotifiedFor: null }, { expiryNotifiedFor: { not: nextUpdate } }],
      },
      data: { expiryNotifiedFor: nextUpdate },
    });
    return count === 1;
  },
  /** Moves a due source's next refresh on, only if no other worker did first: true when this one claimed it. */
  async claimDue(db: UnitOfWork, id: string, dueAt: Date, until: Date) {
    const { count } = await db.prisma.trustSource.updateMany({
      where: { id, ...live, nextRefreshAt: dueAt },
      data: { nextRefreshAt: until },
    });
    return count === 1;
  },
};

export type TrustSourceRow = NonNullable<Awaited<ReturnType<typeof trustSourceRepository.findById>>>;
