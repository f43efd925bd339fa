// The operator CLI's commands as one function: a parsed command, run against an open database, gives
// what the CLI prints and its exit code. The CLI runs it on the database it opens itself, or, while the
// API holds the embedded database, the API runs it for the CLI (operator-socket.ts).
import { parseArgs } from "node:util";
import {
  addStaffUser,
  type Caches,
  createApiKey,
  createTenant,
  DomainError,
  ENVIRONMENTS,
  type Environment,
  findTenant,
  grantStaffMembership,
  type HeldKey,
  isScope,
  listApiKeysAcrossTenants,
  listIssuerKeysAcrossTenants,
  listTenants,
  listVerifierKeysAcrossTenants,
  PLATFORM_SCOPE,
  type ResealReport,
  recordOperatorAction,
  resealSecrets,
  resetStaffPassword,
  revokeApiKey,
  SCOPES,
  type Scope,
  type SecretBox,
  STAFF_SCOPE,
  verifyAuditChain,
} from "@cred/core";
import type { UnitOfWork } from "@cred/db";
import { z } from "zod";

export const USAGE = `Usage:
  pnpm cli tenants create <name> [--json]
  pnpm cli tenants list [--json]
  pnpm cli keys create --tenant <tenantId> --env sandbox|production --scopes <comma list|all|platform.manage>
                       [--name <name>] [--issuer <issuerId>] [--expires <ISO date>] [--json]
                       (platform.manage alone: a platform key for the Tenants_* operations, docs/api/tenants.md;
                       staff.manage, production keys only: the StaffMembers_* operations, docs/api/staff-members.md)
  pnpm cli keys list [--tenant <tenantId>] [--json]
  pnpm cli keys revoke <keyId> [--json]
  pnpm cli staff create --email <email> --tenant <tenantId> --role admin|operator|viewer [--json]
  pnpm cli staff grant --email <email> --tenant <tenantId> --role admin|operator|viewer [--json]
  pnpm cli staff reset-password --email <email> [--json]
  pnpm cli master-key check [--json]     (counts what each master key sealed; writes nothing)
  pnpm cli master-key reseal [--json]    (seals everything again under MASTER_KEY; see docs/operations.md)
  pnpm cli audit verify [--tenant <tenantId>] [--json]   (checks each tenant's audit hash chain; exit 1 when broken)
  pnpm cli issuer-keys list [--tenant <tenantId>] [--provider software|pkcs11] [--json]
                                          (issuer keys and where each is held; with PKCS11_MODULE set, also
                                           keys in the token that no issuer key names; docs/key-custody.md)

While the API runs on the embedded database, the CLI has the API run the command (its operator socket in
DATA_DIR); see docs/operations.md.`;

/** A command as parsed from the command line; also what the CLI sends over the operator socket. */
export const ZCliCommand = z.object({
  positionals: z.array(z.string().max(1000)).max(3),
  options: z
    .object({
      tenant: z.string().max(1000),
      email: z.string().max(1000),
      role: z.string().max(1000),
      env: z.string().max(1000),
      scopes: z.string().max(10_000),
      name: z.string().max(1000),
      issuer: z.string().max(1000),
      expires: z.string().max(1000),
      provider: z.string().max(1000),
      json: z.boolean(),
    })
    .partial()
    .strict(),
});
export type CliCommand = z.infer<typeof ZCliCommand>;

/** What a command printed and how it ended: the CLI writes these out and exits with `exitCode`. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Where a command runs: the database, that process's caches, its master keys and who asked. */
export interface CommandContext {
  root: UnitOfWork;
  /** The caches of the process the command runs in (the API's, so a revoked key stops at once). */
  caches: Caches;
  /** The master keys, asked for only by `master-key` commands; may throw (a missing MASTER_KEY). */
  secretBox: () => SecretBox;
  /** The operating-system user recorded as the operator in the audit trail. */
  operatingSystemUser: string;
  /** With a PKCS#11 token configured: the key pairs in it (`issuer-keys list`); may throw while it is unreachable. */
  tokenKeys?: () => Promise<HeldKey[]>;
}

/** A wrong command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

const usage = (message: string) => ({ exitCode: 2, stdout: "", stderr: `${message}\n\n${USAGE}\n` });

/** The command line, parsed: `help` for --help or no command at all. */
export function parseCommandLine(argv: string[]): CliCommand | "help" | CommandResult {
  const parse = () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        tenant: { type: "string" },
        email: { type: "string" },
        role: { type: "string" },
        env: { type: "string" },
        scopes: { type: "string" },
        name: { type: "string" },
        issuer: { type: "string" },
        expires: { type: "string" },
        provider: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    return usage((error as Error).message);
  }
  const { help, ...options } = parsed.values;
  if (help || parsed.positionals.length === 0) return "help";
  if (parsed.positionals.length > 3)
    return usage(`Too many arguments: ${parsed.positionals.join(" ")} (quote a name with spaces).`);
  return { positionals: parsed.positionals, options };
}

function fail(message: string): never {
  throw new UsageError(message);
}

function resealSummary(report: ResealReport, previousKeys: number): string {
  const total = (k: "current" | "resealed" | "unreadable" | "changedMeanwhile") =>
    report.columns.reduce((sum, c) => sum + c[k], 0);
  const lines = report.columns
    .filter((c) => c.current + c.resealed + c.unreadable + c.changedMeanwhile > 0)
    .map(
      (c) =>
        `  ${`${c.table}.${c.column}`.padEnd(38)} ${c.current} current, ${c.resealed} ${report.dryRun ? "to reseal" : "resealed"}, ${c.unreadable} unreadable${c.changedMeanwhile ? `, ${c.changedMeanwhile} changed meanwhile` : ""}`,
    );
  const keyedLines = report.keyedHashes
    .filter((c) => c.current + c.previous + c.unkeyed + c.unknownKey > 0)
    .map(
      (c) =>
        `  ${`${c.table}.${c.column}`.padEnd(38)} ${c.current} current, ${c.previous} under a previous key${c.previousUsableUntil ? ` (in use until ${c.previousUsableUntil})` : ""}, ${c.unkeyed} unkeyed${c.unknownKey ? `, ${c.unknownKey} under no configured key` : ""} (keyed hashes of open offers: counted, not resealed)`,
    );
  const previousHashes = report.keyedHashes.reduce((sum, c) => sum + c.previous, 0);
  const keepUntil = report.keyedHashes
    .map((c) => c.previousUsableUntil)
    .filter((until): until is string => until !== null)
    .sort()
    .at(-1);
  // A keyed hash cannot be made again without its secret: it verifies while its key stays configured.
  const keyedCaveat = previousHashes
    ? ` But ${previousHashes} tx codes of open offers were hashed under a previous key, and only it verifies them (the codes are not stored, so they cannot be hashed again): keep PREVIOUS_MASTER_KEYS until ${keepUntil}, when the last of those offers ends, or those tx codes stop working.`
    : "";
  const outcome = total("unreadable")
    ? `${total("unreadable")} sealed values open with no configured key (MASTER_KEY and ${previousKeys} in PREVIOUS_MASTER_KEYS): ${report.unreadable.join(", ")}. Add the key that sealed them to PREVIOUS_MASTER_KEYS and run this again.`
    : report.dryRun
      ? total("resealed")
        ? `${total("resealed")} values are still sealed under a previous key: run pnpm cli master-key reseal.`
        : previousHashes
          ? `Every sealed value opens with MASTER_KEY.${keyedCaveat}`
          : "Every sealed value opens with MASTER_KEY: PREVIOUS_MASTER_KEYS can be removed."
      : total("changedMeanwhile")
        ? `${total("resealed")} values sealed again; ${total("changedMeanwhile")} were rewritten by the service meanwhile: run pnpm cli master-key check, and reseal again if it finds any.`
        : `Done: every sealed value is now under MASTER_KEY (${total("resealed")} sealed again). Once every process runs with this MASTER_KEY (check confirms it), remove PREVIOUS_MASTER_KEYS and restart them.${keyedCaveat}`;
  return [...lines, ...keyedLines, outcome].join("\n");
}

/**
 * Runs one command. A wrong command line gives exit code 2 and the usage, a failed check (unreadable
 * sealed values, a broken audit chain) exit code 1; any other error is thrown to the caller.
 */
export async function runCommand(context: CommandContext, command: CliCommand): Promise<CommandResult> {
  const out: string[] = [];
  let exitCode = 0;
  try {
    exitCode = await dispatch(context, command, out);
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  }
  return { exitCode, stdout: out.join(""), stderr: "" };
}

async function dispatch(context: CommandContext, command: CliCommand, out: string[]): Promise<number> {
  const { root, caches } = context;
  const values = command.options;
  const [group, action, arg] = command.positionals;
  /** `staff create` and `staff grant`: who, where, and which role, all required. */
  const staffArgs = () => ({
    email: values.email ?? fail("--email is required."),
    tenantId: values.tenant ?? fail("--tenant is required."),
    role: values.role ?? fail("--role is required."),
  });
  /** The audit event of a state-changing command (docs/api/audit-events.md). */
  const audit = (action: Omit<Parameters<typeof recordOperatorAction>[1], "operatingSystemUser">) =>
    recordOperatorAction(root, { ...action, operatingSystemUser: context.operatingSystemUser });
  const print = (value: unknown, text: string) =>
    out.push(values.json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);

  if (group === "tenants" && action === "create") {
    if (!arg) fail("tenants create needs a name.");
    const tenant = await createTenant(root, arg);
    await audit({
      tenantId: tenant.id,
      command: "tenants create",
      target: { type: "tenant", id: tenant.id },
      input: { name: arg },
    });
    print({ id: tenant.id, name: tenant.name }, `Created tenant ${tenant.id} (${tenant.name}).`);
  } else if (group === "tenants" && action === "list") {
    const tenants = await listTenants(root);
    print(tenants, tenants.map((t) => `${t.id}  ${t.name}`).join("\n") || "No tenants.");
  } else if (group === "keys" && action === "create") {
    const tenantId = values.tenant ?? fail("--tenant is required.");
    const environment = values.env as Environment;
    if (!ENVIRONMENTS.includes(environment)) fail("--env must be sandbox or production.");
    const raw = values.scopes ?? fail("--scopes is required (a comma list, or all).");
    const scopes = raw === "all" ? [...SCOPES] : raw.split(",").map((s) => s.trim());
    // A platform key holds platform.manage alone: it administers tenants, not a tenant's resources.
    const platformKey = scopes.includes(PLATFORM_SCOPE);
    if (platformKey && (scopes.length > 1 || values.issuer))
      fail(`${PLATFORM_SCOPE} is granted alone, without other scopes or an issuer.`);
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) fail(`Unknown scopes: ${unknown.join(", ")}.`);
    // Team management reaches both environments (docs/api/staff-members.md): production keys only.
    if (scopes.includes(STAFF_SCOPE) && (environment !== "production" || values.issuer))
      fail(
        `${STAFF_SCOPE} is for production keys without an issuer: team members work in both environments.`,
      );
    if (!(await findTenant(root, tenantId))) fail(`No tenant ${tenantId}.`);
    let expiresAt: Date | null = null;
    if (values.expires) {
      expiresAt = new Date(values.expires);
      if (Number.isNaN(expiresAt.getTime())) fail("--expires must be an ISO 8601 date.");
      if (expiresAt.getTime() <= Date.now()) fail("--expires must be in the future.");
    }
    const key = await createApiKey(
      root,
      { tenantId, environment },
      {
        name: values.name ?? "CLI key",
        scopes: scopes as Scope[],
        issuerId: values.issuer ?? null,
        expiresAt,
      },
    );
    await audit({
      tenantId,
      environment,
      command: "keys create",
      target: { type: "apiKey", id: key.id },
      input: { name: key.name, scopes, issuerId: values.issuer, expiresAt: values.expires },
    });
    print(key, `Created key ${key.id} for ${tenantId}/${environment}. The key is shown once:\n${key.key}`);
  } else if (group === "keys" && action === "list") {
    // The same DTO (with its status: active, expired or revoked) with or without --tenant.
    const dtos = await listApiKeysAcrossTenants(root, values.tenant);
    print(
      dtos,
      dtos
        .map((k) => `${k.id}  ${k.tenantId}  ${k.environment}  ak_${k.prefix}_…  ${k.status}  ${k.name}`)
        .join("\n") || "No keys.",
    );
  } else if (group === "keys" && action === "revoke") {
    if (!arg) fail("keys revoke needs a key id.");
    // Any tenant's key by its id. Through the running API, its own caches drop the key at once; another
    // API process (PostgreSQL) drops its cached row within 2 s.
    const key = await revokeApiKey(root, caches, {}, arg).catch((error: unknown) =>
      error instanceof DomainError && error.code === "NotFound"
        ? fail(`No key ${arg}.`)
        : Promise.reject(error),
    );
    const owner = (await listApiKeysAcrossTenants(root, undefined)).find((k) => k.id === key.id);
    if (owner) {
      await audit({
        tenantId: owner.tenantId,
        environment: key.environment,
        command: "keys revoke",
        target: { type: "apiKey", id: key.id },
        input: {},
      });
    }
    print(key, `Revoked key ${key.id}.`);
  } else if (group === "staff" && action === "create") {
    const user = await addStaffUser(root, staffArgs()).catch((error: Error) => fail(error.message));
    await audit({
      tenantId: user.tenantId,
      command: "staff create",
      target: { type: "staffUser", id: user.email },
      input: { email: user.email, role: user.role },
    });
    print(
      user,
      `Created console user ${user.email} (${user.role} in ${user.tenantId}). The password is shown once:\n${user.password}`,
    );
  } else if (group === "staff" && action === "reset-password") {
    const { tenantIds, ...reset } = await resetStaffPassword(
      root,
      values.email ?? fail("--email is required."),
    ).catch((error: Error) => fail(error.message));
    // In every tenant the user works in; the summary names the user, never the password.
    for (const tenantId of tenantIds) {
      await audit({
        tenantId,
        command: "staff reset-password",
        target: { type: "staffUser", id: reset.email },
        input: { email: reset.email },
      });
    }
    print(
      reset,
      `New password for ${reset.email} (their sessions are signed out). It is shown once:\n${reset.password}`,
    );
  } else if (group === "staff" && action === "grant") {
    const membership = await grantStaffMembership(root, staffArgs()).catch((error: Error) =>
      fail(error.message),
    );
    await audit({
      tenantId: membership.tenantId,
      command: "staff grant",
      target: { type: "staffUser", id: values.email as string },
      input: { email: values.email, role: membership.role },
    });
    print(membership, `${values.email} now has the role ${membership.role} in ${membership.tenantId}.`);
  } else if (group === "master-key" && (action === "check" || action === "reseal")) {
    const secretBox = context.secretBox();
    const report = await resealSecrets(root, secretBox, { dryRun: action === "check" });
    // A reseal rewrites every tenant's secrets: each tenant's trail records it (a check writes nothing).
    if (action === "reseal") {
      for (const tenant of await listTenants(root)) {
        await audit({
          tenantId: tenant.id,
          command: "master-key reseal",
          target: { type: "masterKey", id: secretBox.currentKeyTag },
          input: {},
        });
      }
    }
    print(report, resealSummary(report, secretBox.previousKeyCount));
    if (report.unreadable.length) return 1;
  } else if (group === "audit" && action === "verify") {
    const tenantIds = values.tenant ? [values.tenant] : (await listTenants(root)).map((t) => t.id);
    const reports = [];
    for (const tenantId of tenantIds) reports.push(await verifyAuditChain(root, tenantId));
    print(
      reports,
      reports
        .map((r) =>
          r.intact
            ? `${r.tenantId}  intact (${r.events} events)`
            : `${r.tenantId}  BROKEN at event ${r.brokenAt?.sequence}: ${r.brokenAt?.reason}`,
        )
        .join("\n") || "No tenants.",
    );
    if (reports.some((r) => !r.intact)) return 1;
  } else if (group === "issuer-keys" && action === "list") {
    const provider = values.provider;
    if (provider !== undefined && provider !== "software" && provider !== "pkcs11")
      fail("--provider must be software or pkcs11.");
    const filter = {
      ...(values.tenant ? { tenantId: values.tenant } : {}),
      ...(provider ? { provider } : {}),
    };
    const keys = await listIssuerKeysAcrossTenants(root, filter);
    // The verifier identities' request-object signing keys (and pending access-certificate requests').
    const verifierKeys = await listVerifierKeysAcrossTenants(root, filter);
    // Key pairs in the token that no issuer or verifier key names: left by a destroy that failed while
    // the token was unreachable, for the operator to remove.
    let unreferenced: { providerKeyRef: string; label: string }[] | null = null;
    if (context.tokenKeys && provider !== "software" && !values.tenant) {
      const named = new Set(
        [...keys, ...verifierKeys].map((k) => k.providerKeyRef).filter((ref): ref is string => ref !== null),
      );
      unreferenced = (await context.tokenKeys()).filter((k) => !named.has(k.providerKeyRef));
    }
    const lines = keys.map(
      (k) =>
        `${k.tenantId}  ${k.environment.padEnd(10)} ${k.issuerId}  ${k.purpose.padEnd(29)} ${k.state.padEnd(7)} ${k.kid}  ${k.provider}${k.providerKeyRef ? ` ${k.providerKeyRef}` : ""}${k.holdsPrivateKey ? "" : " (private part discarded)"}`,
    );
    if (verifierKeys.length)
      lines.push(
        "Verifier keys (request objects; access-certificate requests awaiting their certificate):",
        ...verifierKeys.map(
          (k) =>
            `  ${k.tenantId}  ${k.environment.padEnd(10)} ${k.certificateId}  ${k.use.padEnd(15)} ${k.provider}${k.providerKeyRef ? ` ${k.providerKeyRef}` : ""}`,
        ),
      );
    if (unreferenced?.length)
      lines.push(
        "Keys in the PKCS#11 token that no issuer or verifier key names (left by a failed destroy; remove with the token's tools):",
        ...unreferenced.map((k) => `  ${k.providerKeyRef}  ${k.label}`),
      );
    print(
      { keys, verifierKeys, ...(unreferenced ? { unreferencedTokenKeys: unreferenced } : {}) },
      lines.join("\n") || "No issuer keys.",
    );
  } else {
    fail(`Unknown command: ${command.positionals.join(" ")}`);
  }
  return 0;
}
