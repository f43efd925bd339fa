import type { Environment } from "@cred/contracts/scopes";
import type { UnitOfWork } from "@cred/db";
import { hash, verify } from "@node-rs/argon2";
import { resolveStaffTenant } from "../rpc/staff-session";
import { newId, randomToken } from "../shared/ids";
import type { StaffRole } from "../shared/principal";
import { hashSecret } from "../shared/secret-box";
import { staffRepository } from "./staff-repository";

const SESSION_HOURS = 12;
// argon2id, OWASP's second recommended configuration (19 MiB, 2 passes).
const ARGON2 = { algorithm: 2 as const, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function createStaffUser(
  db: UnitOfWork,
  input: { tenantId: string; email: string; password: string; role: StaffRole; platformOperator?: boolean },
) {
  return staffRepository.createUser(db, {
    id: newId("usr"),
    tenantId: input.tenantId,
    email: input.email.toLowerCase(),
    passwordHash: await hashPassword(input.password),
    role: input.role,
    platformOperator: input.platformOperator ?? false,
  });
}

/** True when a console user has this e-mail (stored in lower case). */
export async function staffUserExists(db: UnitOfWork, email: string): Promise<boolean> {
  return (await staffRepository.userByEmail(db, email.toLowerCase())) !== null;
}

/** Returns a new session (token shown to the browser once, stored hashed) or null on bad credentials. */
export async function signIn(db: UnitOfWork, email: string, password: string) {
  const user = await staffRepository.userByEmail(db, email.toLowerCase());
  const ok = user
    ? await verify(user.passwordHash, password)
    : await hashPassword(password).then(() => false);
  if (!user || !ok) return null;
  const token = randomToken(32);
  const csrfToken = randomToken(24);
  await staffRepository.createSession(db, {
    id: newId("ses"),
    userId: user.id,
    tokenHash: hashSecret(token),
    csrfToken,
    environment: "sandbox",
    expiresAt: new Date(Date.now() + SESSION_HOURS * 3600_000),
  });
  return { token, csrfToken, user };
}

export async function signOut(db: UnitOfWork, token: string) {
  await staffRepository.deleteSession(db, hashSecret(token));
}

export async function switchEnvironment(db: UnitOfWork, token: string, environment: Environment) {
  await staffRepository.setSessionEnvironment(db, hashSecret(token), environment);
}

/**
 * Points the session at another tenant the user belongs to (home tenant stored as null). Returns
 * false, changing nothing, when the user has no membership there.
 */
export async function switchTenant(
  db: UnitOfWork,
  token: string,
  user: { id: string; tenantId: string; role: string },
  tenantId: string,
) {
  if (!(await resolveStaffTenant(db, user, tenantId))) return false;
  await staffRepository.setSessionTenant(db, hashSecret(token), tenantId === user.tenantId ? null : tenantId);
  return true;
}

const STAFF_ROLES: readonly StaffRole[] = ["admin", "operator", "viewer"];

/** Gives a staff user a role in another tenant (or changes it); the console can then switch to it. */
/** The role named, or an error listing the roles there are. */
function staffRole(role: string): StaffRole {
  if (!STAFF_ROLES.includes(role as StaffRole)) {
    throw new Error(`Unknown role '${role}'; use ${STAFF_ROLES.join(", ")}.`);
  }
  return role as StaffRole;
}

export async function grantStaffMembership(
  db: UnitOfWork,
  input: { email: string; tenantId: string; role: string },
) {
  staffRole(input.role);
  const user = await staffRepository.userByEmail(db, input.email.toLowerCase());
  if (!user) throw new Error(`No staff user ${input.email}.`);
  if (!(await staffRepository.tenantExists(db, input.tenantId)))
    throw new Error(`No tenant ${input.tenantId}.`);
  if (user.tenantId === input.tenantId)
    throw new Error("That is the user's home tenant; its role is set on the user.");
  return staffRepository.upsertMembership(db, user.id, input.tenantId, input.role);
}

/**
 * A console user in a tenant (its home tenant), with a generated password returned once: the CLI's way
 * to add staff beside the bootstrap admin.
 */
export async function addStaffUser(db: UnitOfWork, input: { email: string; tenantId: string; role: string }) {
  const role = staffRole(input.role);
  if (!(await staffRepository.tenantExists(db, input.tenantId)))
    throw new Error(`No tenant ${input.tenantId}.`);
  if (await staffRepository.userByEmail(db, input.email.toLowerCase()))
    throw new Error(`${input.email} is already a console user; use staff grant to add a tenant.`);
  const password = randomToken(15);
  const user = await createStaffUser(db, { ...input, role, password });
  return { id: user.id, email: user.email, tenantId: user.tenantId, role: user.role, password };
}

/**
 * Replaces a console user's password with a generated one (returned once) and ends every session of
 * theirs: the way back in when the bootstrap admin's password is lost. Also returns the tenants the
 * user works in (home tenant first), whose audit trails record the reset.
 */
export async function resetStaffPassword(db: UnitOfWork, email: string) {
  const user = await staffRepository.userByEmail(db, email.toLowerCase());
  if (!user) throw new Error(`No staff user ${email}.`);
  const password = randomToken(15);
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await staffRepository.setPasswordHash(tx, user.id, passwordHash);
    await staffRepository.deleteSessionsOfUser(tx, user.id);
  });
  const memberships = await staffRepository.membershipsOutside(db, user.id, user.tenantId);
  return { email: user.email, password, tenantIds: [user.tenantId, ...memberships.map((m) => m.tenantId)] };
}
