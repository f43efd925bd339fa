import type { Prisma, UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

export const organisationRepository = {
  /** Throws Prisma's unique violation (isUniqueViolation) when the scope has the reference already. */
  create(
    db: UnitOfWork,
    scope: TenantScope,
    data: Omit<Prisma.OrganisationUncheckedCreateInput, keyof TenantScope>,
  ) {
    return db.prisma.organisation.create({ data: { ...data, ...scope } });
  },
  findByReference(db: UnitOfWork, scope: TenantScope, reference: string) {
    return db.prisma.organisation.findUnique({
      where: { tenantId_environment_reference: { ...scope, reference } },
    });
  },
  /** Changes the scope's organisation with this reference; null when there is none. */
  async update(
    db: UnitOfWork,
    scope: TenantScope,
    reference: string,
    changes: Pick<
      Prisma.OrganisationUncheckedUpdateManyInput,
      "displayName" | "legalName" | "country" | "identifiers"
    >,
  ) {
    const { count } = await db.prisma.organisation.updateMany({
      where: { ...scope, reference },
      data: changes,
    });
    return count === 1 ? this.findByReference(db, scope, reference) : null;
  },
  findById(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.organisation.findFirst({ where: { id, ...scope } });
  },
  list(db: UnitOfWork, scope: TenantScope, page: { afterId?: string; take: number }) {
    return db.prisma.organisation.findMany({
      where: { ...scope, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },
};
