import { randomBytes } from "node:crypto";
import { ZCreateCredentialConfigurationRequest } from "@cred/contracts/credential-configurations";
import { ZCreateIssuerRequest } from "@cred/contracts/issuers";
import { ZCreateOrganisationRequest } from "@cred/contracts/organisations";
import { type Environment, SCOPES } from "@cred/contracts/scopes";
import { applyMigrations, type Database, openDatabase, type UnitOfWork } from "@cred/db";
import pg from "pg";
import { createCredentialConfiguration } from "../src/credential-configurations/create-credential-configuration";
import { activateIssuer } from "../src/issuers/activate-issuer";
import { createIssuer } from "../src/issuers/create-issuer";
import type { IssuerCaller } from "../src/issuers/issuer-caller";
import { createOrganisation } from "../src/organisations/organisations";
import { appRouter } from "../src/router";
import { idempotentInputParsers } from "../src/rpc/idempotency";
import { Caches } from "../src/shared/caches";
import type { AppDeps, CoreConfig } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { KeyCustody } from "../src/shared/key-custody";
import { noDomainMetrics } from "../src/shared/metrics";
import type { Principal, TenantScope } from "../src/shared/principal";
import { createRateLimiter } from "../src/shared/rate-limit";
import { SecretBox } from "../src/shared/secret-box";
import { createSignInThrottle, SIGN_IN_THROTTLE } from "../src/shared/sign-in-throttle";
import { SoftwareKeyProvider } from "../src/shared/software-key-provider";
import { createTenant } from "../src/tenants/tenants";

/**
 * The use-case layer's fixture: the core's use-cases called as the procedures call them, on a migrated
 * database and with the dependencies the composition root builds (Caches, SecretBox, config), without
 * HTTP, tRPC or a server. In-memory PGlite by default; a fresh database on the PostgreSQL server named by
 * TEST_POSTGRES_URL when set (as the HTTP tests do).
 */
export interface UseCaseWorld {
  database: Database;
  /** The root unit of work (what a procedure passes as `ctx.db`). */
  db: UnitOfWork;
  deps: AppDeps;
  /** A tenant of its own, in its sandbox environment. */
  scope: TenantScope;
  /** An API key principal of `scope` with every scope (or as overridden). */
  principal(overrides?: Partial<Extract<Principal, { kind: "apiKey" }>>): Principal;
  /** The issuer caller of `principal(overrides)` (what issuerCallerOf gives a procedure). */
  caller(overrides?: { boundIssuerId?: string | null; environment?: Environment }): IssuerCaller;
  close(): Promise<void>;
}

/** The configuration the API server starts with in development mode (apps/api defaultCoreConfig). */
export const USE_CASE_CONFIG: CoreConfig = {
  publicBaseUrl: "http://localhost",
  developmentMode: true,
  idempotencyRetentionHours: 24,
  webhookDeliveryRetentionDays: 30,
  auditRetentionDays: 400,
  certificateExpiryNoticeDays: 30,
  webhookAllowedHosts: ["127.0.0.1", "localhost"],
  issuance: {
    offerLifetimeSeconds: 900,
    accessTokenLifetimeSeconds: 300,
    nonceLifetimeSeconds: 300,
    txCodeMaxAttempts: 5,
    batchSize: 10,
    statusListSize: 131072,
    statusListTtlSeconds: 300,
  },
};

async function freshPostgresDatabase(adminUrl: string) {
  const name = `usecase_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Opens and migrates a database, builds the dependencies and makes a tenant. One per test file. */
export async function openUseCaseWorld(config: Partial<CoreConfig> = {}): Promise<UseCaseWorld> {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  const pgdb = adminUrl ? await freshPostgresDatabase(adminUrl) : undefined;
  const database = openDatabase({ databaseUrl: pgdb?.url, dataDir: ":memory:" });
  await applyMigrations(database.adapterFactory);
  const secretBox = new SecretBox(randomBytes(32));
  const deps: AppDeps = {
    database,
    config: { ...USE_CASE_CONFIG, ...config },
    secretBox,
    keyCustody: new KeyCustody([new SoftwareKeyProvider(secretBox)]),
    rateLimiter: await createRateLimiter({ points: 100_000, durationSeconds: 1 }, database.pool),
    signInThrottle: await createSignInThrottle(SIGN_IN_THROTTLE, database.pool),
    caches: new Caches(),
    idempotentInputs: idempotentInputParsers(appRouter),
    metrics: noDomainMetrics,
  };
  const db = database.root;
  const tenant = await createTenant(db, "Use-case tenant");
  const scope: TenantScope = { tenantId: tenant.id, environment: "sandbox" };
  let keys = 0;
  const principal: UseCaseWorld["principal"] = (overrides = {}) => ({
    kind: "apiKey",
    id: `key_usecase_${++keys}`,
    ...scope,
    scopes: new Set(SCOPES),
    issuerId: null,
    name: "use-case key",
    ...overrides,
  });
  return {
    database,
    db,
    deps,
    scope,
    principal,
    caller: (overrides = {}) => ({
      ...scope,
      boundIssuerId: null,
      ...overrides,
    }),
    async close() {
      await database.close();
      await pgdb?.drop();
    },
  };
}

let counter = 0;

/**
 * Organisation → issuer → credential configuration (claims as given, zod defaults applied as the
 * procedure's input parser does) → activation, through the use-cases; the issuer id and configuration.
 */
export async function activeIssuerOf(
  world: UseCaseWorld,
  configuration: Record<string, unknown> = {},
  options: { activate?: boolean } = {},
) {
  const n = ++counter;
  const caller = world.caller();
  const issuerDeps = { ...world.deps, db: world.db };
  const org = await createOrganisation(
    world.db,
    world.scope,
    ZCreateOrganisationRequest.parse({ reference: `org-${n}`, displayName: `Org ${n}` }),
  );
  const issuer = await createIssuer(
    issuerDeps,
    caller,
    ZCreateIssuerRequest.parse({
      organisationReference: org.reference,
      displayName: `Issuer ${n}`,
      display: [{ locale: "en", name: `Issuer ${n}` }],
    }),
  );
  const created = await createCredentialConfiguration(
    issuerDeps,
    caller,
    ZCreateCredentialConfigurationRequest.parse({
      identifier: `employee-${n}`,
      displayName: "Employee badge",
      issuerId: issuer.id,
      schemaId: "employee-v1",
      claims: [
        { path: ["given_name"], type: "string", required: true },
        { path: ["employee_number"], type: "integer", selectivelyDisclosable: false },
      ],
      ...configuration,
    }),
  );
  if (options.activate !== false) await activateIssuer(issuerDeps, caller, issuer.id);
  return { issuerId: issuer.id, configuration: created.identifier, credentialType: created.credentialType };
}

/** The DomainError a use-case call is refused with (fails the test if it succeeds or throws anything else). */
export async function domainErrorOf(call: Promise<unknown>): Promise<DomainError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected the use-case to refuse with a DomainError; it succeeded");
}
