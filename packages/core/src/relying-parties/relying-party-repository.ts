import type { UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

/** The stored members of a relying party (what create and update write). */
export interface RelyingPartyData {
  name: string;
  legalName: string | null;
  identifiers: string[];
  country: string | null;
  infoUri: string | null;
  privacyPolicyUri: string | null;
  registryUri: string | null;
}

/** Every Prisma call of the relying-parties slice; each takes the tenant + environment. */
export const relyingPartyRepository = {
  create(db: UnitOfWork, scope: TenantScope, data: RelyingPartyData & { id: string }) {
    return db.prisma.relyingParty.create({ data: { ...scope, ...data } });
  },

  findById(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.relyingParty.findFirst({ where: { ...scope, id } });
  },

  list(db: UnitOfWork, scope: TenantScope, page: { afterId?: string; take: number }) {
    return db.prisma.relyingParty.findMany({
      where: { ...scope, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },

  /** Another relying party of this environment with one of `identifiers` (they identify one party). */
  findWithIdentifier(db: UnitOfWork, scope: TenantScope, identifiers: string[], exceptId?: string) {
    return db.prisma.relyingParty.findFirst({
      where: {
        ...scope,
        identifiers: { hasSome: identifiers },
        ...(exceptId ? { id: { not: exceptId } } : {}),
      },
      select: { id: true, identifiers: true },
    });
  },

  async update(db: UnitOfWork, scope: TenantScope, id: string, changes: Partial<RelyingPartyData>) {
    const { count } = await db.prisma.relyingParty.updateMany({ where: { ...scope, id }, data: changes });
    return count === 1 ? db.prisma.relyingParty.findFirst({ where: { ...scope, id } }) : null;
  },

  /** Identifiers of verification policies whose active version names the relying party (at most `take`). */
  async policiesNaming(db: UnitOfWork, scope: TenantScope, id: string, take = 10) {
    const rows = await db.prisma.verificationPolicy.findMany({
      where: { ...scope, rules: { path: ["relyingPartyId"], equals: id } },
      select: { identifier: true },
      orderBy: { identifier: "asc" },
      take,
    });
    return rows.map((r) => r.identifier);
  },

  /** The `sub` identifiers of each registration certificate held for the relying party. */
  async registrationSubjects(db: UnitOfWork, scope: TenantScope, relyingPartyId: string) {
    const rows = await db.prisma.verifierRegistrationCertificate.findMany({
      where: { ...scope, relyingPartyId },
      select: { id: true, registration: true },
      orderBy: { id: "asc" },
    });
    return rows.map((r) => ({
      id: r.id,
      subjectIds: (r.registration as { subjectIds?: string[] }).subjectIds ?? [],
    }));
  },

  /** Deletes the relying party and the registration certificates held for it; false when absent. */
  async delete(db: UnitOfWork, scope: TenantScope, id: string) {
    await db.prisma.verifierRegistrationCertificate.deleteMany({ where: { ...scope, relyingPartyId: id } });
    const { count } = await db.prisma.relyingParty.deleteMany({ where: { ...scope, id } });
    return count === 1;
  },
};

export type RelyingPartyRow = NonNullable<Awaited<ReturnType<typeof relyingPartyRepository.findById>>>;
