import type { TStaffMember } from "@cred/contracts/staff-members";
import type { UnitOfWork } from "@cred/db";
import { DomainError, notFound } from "../shared/errors";
import { randomToken } from "../shared/ids";
import type { Principal, StaffRole } from "../shared/principal";
import { createStaffUser, hashPassword } from "../staff";
import { staffMemberRepository as repo } from "./staff-member-repository";

/**
 * Team management of the caller's tenant (docs/api/staff-members.md). A member is a console user whose
 * home is the tenant or who holds a membership in it; a user of no such kind is 404 NotFound, as one
 * that does not exist. Passwords are generated here, returned once and stored only as argon2id hashes.
 */

type UserRow = NonNullable<Awaited<ReturnType<typeof repo.userById>>>;
interface Member {
  user: UserRow;
  role: StaffRole;
  home: boolean;
  createdAt: Date;
}

const toDto = (m: Member): TStaffMember => ({
  id: m.user.id,
  email: m.user.email,
  role: m.role,
  home: m.home,
  platformOperator: m.user.platformOperator,
  createdAt: m.createdAt.toISOString(),
});

/** The user as a member of the tenant, or null when they are none (another tenant's, or no one). */
async function findMember(db: UnitOfWork, tenantId: string, userId: string): Promise<Member | null> {
  const user = await repo.userById(db, userId);
  if (!user) return null;
  if (user.tenantId === tenantId)
    return { user, role: user.role as StaffRole, home: true, createdAt: user.createdAt };
  const membership = await repo.membership(db, userId, tenantId);
  return membership
    ? { user, role: membership.role as StaffRole, home: false, createdAt: membership.createdAt }
    : null;
}

async function memberOrNotFound(db: UnitOfWork, tenantId: string, userId: string): Promise<Member> {
  const member = await findMember(db, tenantId, userId);
  if (!member) throw notFound("The staff member");
  return member;
}

/**
 * A platform operator holds platform control besides their role: only a caller who holds it too may
 * change them, so a tenant administrator cannot take the operator's account over (or lock them out).
 */
function assertMayManage(principal: Principal, member: Member) {
  if (member.user.platformOperator && !principal.scopes.has("platform.manage"))
    throw new DomainError(
      "MissingScope",
      "This member is a platform operator: only a caller holding 'platform.manage' may change them.",
    );
}

/** 409 when the change would leave the tenant without an administrator. */
async function assertAnotherAdmin(db: UnitOfWork, tenantId: string, member: Member) {
  if (member.role !== "admin") return;
  if ((await repo.countAdmins(db, tenantId)) <= 1)
    throw new DomainError(
      "InvalidState",
      "This is the tenant's last administrator: make another member an administrator first.",
      [{ code: "LastAdministrator", target: "userId", message: "is the tenant's last administrator" }],
    );
}

/** StaffMembers_List: a page of the tenant's members by user id; the cursor is the page's last id. */
export async function listStaffMembers(
  db: UnitOfWork,
  tenantId: string,
  query: { limit: number; cursor?: string },
) {
  const take = query.limit + 1;
  const [homeUsers, memberships] = await Promise.all([
    repo.homeUsers(db, tenantId, take, query.cursor),
    repo.memberships(db, tenantId, take, query.cursor),
  ]);
  const guests = new Map(
    (
      await repo.usersByIds(
        db,
        memberships.map((m) => m.userId),
      )
    ).map((u) => [u.id, u]),
  );
  const members: Member[] = [
    ...homeUsers.map((user) => ({
      user,
      role: user.role as StaffRole,
      home: true,
      createdAt: user.createdAt,
    })),
    ...memberships.flatMap((m) => {
      const user = guests.get(m.userId);
      // A membership of the home tenant itself is the home user, listed once.
      return user && user.tenantId !== tenantId
        ? [{ user, role: m.role as StaffRole, home: false, createdAt: m.createdAt }]
        : [];
    }),
  ].sort((a, b) => (a.user.id < b.user.id ? -1 : 1));
  const page = members.slice(0, query.limit);
  return {
    data: page.map(toDto),
    nextCursor: members.length > query.limit ? (page.at(-1)?.user.id ?? null) : null,
  };
}

/**
 * StaffMembers_Create: a new console user whose home is the tenant, with a generated password returned
 * once; or, when the e-mail is a console user of another tenant, a membership (no password: they sign
 * in as before). 409 AlreadyExists when they are a member already.
 */
export async function createStaffMember(
  db: UnitOfWork,
  tenantId: string,
  input: { email: string; role: StaffRole },
) {
  const email = input.email.toLowerCase();
  return db.transaction(async (tx) => {
    await repo.lockTenant(tx, tenantId);
    const existing = await repo.userByEmail(tx, email);
    if (existing) {
      if (await findMember(tx, tenantId, existing.id))
        throw new DomainError("AlreadyExists", `${email} is a member of this tenant already.`, [
          { code: "AlreadyExists", target: "email", message: "is a member of this tenant already" },
        ]);
      const membership = await repo.createMembership(tx, existing.id, tenantId, input.role);
      const member = { user: existing, role: input.role, home: false, createdAt: membership.createdAt };
      return { ...toDto(member), temporaryPassword: null };
    }
    const temporaryPassword = randomToken(15);
    const user = await createStaffUser(tx, {
      tenantId,
      email,
      password: temporaryPassword,
      role: input.role,
    });
    return { ...toDto({ user, role: input.role, home: true, createdAt: user.createdAt }), temporaryPassword };
  });
}

/** StaffMembers_UpdateRole: the role from the next request on; the last administrator keeps theirs. */
export async function updateStaffMemberRole(
  db: UnitOfWork,
  principal: Principal,
  input: { userId: string; role: StaffRole },
) {
  const tenantId = principal.tenantId;
  return db.transaction(async (tx) => {
    await repo.lockTenant(tx, tenantId);
    const member = await memberOrNotFound(tx, tenantId, input.userId);
    assertMayManage(principal, member);
    if (member.role === input.role) return toDto(member);
    await assertAnotherAdmin(tx, tenantId, member);
    if (member.home) await repo.setUserRole(tx, member.user.id, input.role);
    else await repo.setMembershipRole(tx, member.user.id, tenantId, input.role);
    return toDto({ ...member, role: input.role });
  });
}

/**
 * StaffMembers_Remove: the member leaves the tenant and every session of theirs ends. A member from
 * another tenant loses the membership; a user whose home this is is deleted, or, when they hold
 * memberships elsewhere, moves home to the oldest of them (with its role), so other tenants keep them.
 */
export async function removeStaffMember(db: UnitOfWork, principal: Principal, userId: string) {
  const tenantId = principal.tenantId;
  return db.transaction(async (tx) => {
    await repo.lockTenant(tx, tenantId);
    const member = await memberOrNotFound(tx, tenantId, userId);
    assertMayManage(principal, member);
    await assertAnotherAdmin(tx, tenantId, member);
    if (!member.home) await repo.deleteMembership(tx, userId, tenantId);
    else {
      const [next] = await repo.membershipsElsewhere(tx, userId, tenantId);
      if (next) await repo.moveHome(tx, userId, next.tenantId, next.role);
      else await repo.deleteUser(tx, userId);
    }
    await repo.deleteSessionsOfUser(tx, userId);
    return toDto(member);
  });
}

/**
 * StaffMembers_ResetPassword: a generated password, returned once, and every session of the user ends.
 * Only for members whose home is the tenant (409 InvalidState otherwise): a tenant cannot take over the
 * account another tenant's administrators manage.
 */
export async function resetStaffMemberPassword(db: UnitOfWork, principal: Principal, userId: string) {
  const member = await memberOrNotFound(db, principal.tenantId, userId);
  assertMayManage(principal, member);
  if (!member.home)
    throw new DomainError(
      "InvalidState",
      "This member's home is another tenant, whose administrators reset their password.",
      [{ code: "NotHomeTenant", target: "userId", message: "is managed by their home tenant" }],
    );
  const temporaryPassword = randomToken(15);
  const passwordHash = await hashPassword(temporaryPassword);
  await db.transaction(async (tx) => {
    await repo.setPasswordHash(tx, userId, passwordHash);
    await repo.deleteSessionsOfUser(tx, userId);
  });
  return { ...toDto(member), temporaryPassword };
}

/** StaffMembers_SignOut: ends every console session of the member (in whichever tenant it acts). */
export async function signOutStaffMember(db: UnitOfWork, principal: Principal, userId: string) {
  const member = await memberOrNotFound(db, principal.tenantId, userId);
  assertMayManage(principal, member);
  return { id: member.user.id, sessionsRevoked: await repo.deleteSessionsOfUser(db, userId) };
}
