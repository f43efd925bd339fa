import { randomBytes } from "node:crypto";
import { newId } from "@cred/core";
import { pkceChallengeOf } from "@cred/oid4vc";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction, issueCredential } from "./fixtures";
import { servedTrustedList } from "./fixtures/trusted-list-server";
import { type CallResult, call, errorCode, startTestServer, type TestServer } from "./harness";
import {
  exampleRunner,
  type Json,
  loadOpenApi,
  type OpenApiDocument,
  type Operation,
  ownSigningCertificate,
} from "./openapi-walk";
import { fetchJson, resolveOffer, wellKnown } from "./wallet-client";

/**
 * Tenant and environment isolation of every REST operation the OpenAPI document lists (so a new
 * operation is covered without touching this file), as operation-guards.test.ts does for 401/403/429.
 * Tenant A's sandbox makes one of everything from the documented examples; then tenant B, and tenant A's
 * own production environment, each with a key holding every scope, send each operation's example aimed at
 * A's resources. An operation that names a resource in its path answers 404 (the ErrorEnvelope, with
 * `x-ms-request-id`), as for a resource that does not exist; a list holds none of A's sandbox resources;
 * and afterwards A's resources read as before and A's rows in the database are as they were.
 */

// The example webhook URL's host, example.com, resolves publicly; the test machine may have no DNS (as
// in openapi-examples.test.ts).
vi.mock("node:dns/promises", async (importOriginal) =>
  (await import("./fixtures/dns")).dnsResolvingExampleCom(await importOriginal()),
);

/**
 * Operations this test cannot exercise, with the reason. A new operation that names a resource in its
 * path is exercised without being named here; one that does not must be named in COLLECTION_OPERATIONS
 * or here, so nothing escapes unnoticed.
 */
const NOT_EXERCISED: Record<string, string> = {
  VerifierCertificates_ImportAccessCertificate:
    "installs the certificate for the caller's own pending request (none from another tenant: 409); isolation in relying-party-certificates.test.ts",
  VerifierRegistrationCertificates_Upload:
    "must name the caller's own access certificate (another tenant has none: 409); isolation in relying-party-certificates.test.ts",
  VerifierRegistrationCertificates_Add:
    "must name the caller's own access certificate (another tenant has none: 409); isolation in registration-certificates-by-id.test.ts",
  VerifierRegistrationCertificates_Delete:
    "removes the caller's own registration certificate (another tenant has none: 404); isolation in relying-party-certificates.test.ts",
};

/**
 * Platform operations (scope platform.manage, docs/api/tenants.md) are exempt: they are not tenant-bound
 * by design (a platform operator names any tenant in the path), no tenant key can hold their scope, so
 * there is no "another tenant" to hide A's tenant from. Here each is checked to refuse every tenant's
 * key (403 MissingScope); tenants-admin.test.ts tests what they do.
 */
const PLATFORM_OPERATIONS: Record<string, string> = {
  Tenants_Create: "makes a tenant: the platform operator's, not a tenant's, operation",
  Tenants_List: "lists every tenant: the platform operator's view across tenants",
  Tenants_Get: "reads any tenant by id: the platform operator's view across tenants",
  Tenants_Suspend: "suspends any tenant by id: the platform operator acts across tenants",
  Tenants_Reactivate: "reactivates any tenant by id: the platform operator acts across tenants",
  Tenants_CreateAdmin: "makes an admin of any tenant by id: the platform operator acts across tenants",
};
let platformOperations: Operation[];

/**
 * Team operations (scope staff.manage, docs/api/staff-members.md) are tenant-wide, not per environment:
 * a console user works in both, so A's production sees A's team by design. Only production keys may
 * hold the scope, so A's sandbox (which makes everything here) cannot call them; each is checked to
 * refuse every key used here (403 MissingScope), and staff-members.test.ts checks that another tenant's
 * production key with staff.manage gets 404 for A's members and none of them in its list.
 */
const TEAM_OPERATIONS: Record<string, string> = {
  StaffMembers_List: "lists the caller tenant's console users, who work in both environments",
  StaffMembers_Create: "adds a console user to the caller's tenant, in both environments",
  StaffMembers_UpdateRole: "changes a tenant-wide role; tested for cross-tenant 404 on its own",
  StaffMembers_Remove: "removes a tenant-wide member; tested for cross-tenant 404 on its own",
  StaffMembers_ResetPassword: "resets a console user's password; tested for cross-tenant 404 on its own",
  StaffMembers_SignOut: "ends a console user's sessions; tested for cross-tenant 404 on its own",
};
let teamOperations: Operation[];

/**
 * Operations that name no resource in their path and are not a read (reads are checked as lists or
 * singletons), with what each names instead. `namesInBody`: its example body names tenant A's resources
 * (an issuer id, an organisation reference, a configuration or policy identifier, an interaction);
 * another tenant or environment is refused (400 or 404, as the operation documents for a name that does
 * not exist) exactly as when the example's ids name nothing at all, so it cannot tell that A's exist.
 * `namesNothing`: it makes a resource of the caller's own (identifiers are per tenant and environment),
 * so another tenant or environment may make one with A's very identifiers: 201, never a 409 that would
 * tell that A's exist.
 */
const COLLECTION_OPERATIONS: Record<string, "namesInBody" | { namesNothing: string }> = {
  Issuers_Create: "namesInBody",
  CredentialConfigurations_Create: "namesInBody",
  IssuanceTransactions_Create: "namesInBody",
  Credentials_Issue: "namesInBody",
  Verifications_Create: "namesInBody",
  VerificationPolicies_Create: "namesInBody",
  // Its `interaction` is what the authorization endpoint handed the browser of a wallet of A's.
  Authorizations_Complete: "namesInBody",
  Organisations_Create: { namesNothing: "makes the caller's organisation under a reference of its own" },
  Webhooks_Create: { namesNothing: "makes the caller's subscription" },
  VerifierCertificates_Upload: { namesNothing: "sets the caller's own verifier certificate" },
  VerifierCertificates_CreateSigningRequest: {
    namesNothing: "makes the caller's own access-certificate request (key and CSR)",
  },
  TrustSources_Create: { namesNothing: "makes the caller's trust source for a list it names by URL" },
  RelyingParties_Create: {
    namesNothing: "makes the caller's relying party (identifiers are per environment)",
  },
};

const collectionOperations = (kind: "namesInBody" | "namesNothing") =>
  Object.entries(COLLECTION_OPERATIONS)
    .filter(([, k]) => (kind === "namesInBody" ? k === "namesInBody" : k !== "namesInBody"))
    .map(([id]) => api.operations.find((o) => o.id === id)!);

interface Caller {
  name: string;
  key: string;
}

let t: TestServer;
let api: OpenApiDocument;
let keyA: string;
let runner: ReturnType<typeof exampleRunner>;
let foreign: Caller[];
let trustedList: Awaited<ReturnType<typeof servedTrustedList>> | undefined;
let setup: Awaited<ReturnType<ReturnType<typeof exampleRunner>["run"]>>;

const hasPathParameter = (op: Operation) => op.path.includes("{");
const dataSchema = (op: Operation) =>
  api.resolve(
    api.resolve(op.operation.responses?.["200"]?.content?.["application/json"]?.schema)?.properties?.data,
  );
/** An operation answering one item per line (AuditEvents_Export): a list in another form. */
const isNdjson = (op: Operation) =>
  Boolean(op.operation.responses?.["200"]?.content?.["application/x-ndjson"]);
const isList = (op: Operation) =>
  op.method === "GET" && !hasPathParameter(op) && (dataSchema(op)?.type === "array" || isNdjson(op));
/** A list's items: its `data`, or each line of an NDJSON body (which `call` parses when it is one line). */
function itemsOf(op: Operation, body: unknown): Json[] {
  if (!isNdjson(op)) return (body as { data: Json[] }).data;
  if (body === undefined || body === "") return [];
  if (typeof body !== "string") return [body as Json];
  return body
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Json);
}
const resourceOperations = () =>
  api.operations.filter((op) => hasPathParameter(op) && !(op.id in NOT_EXERCISED));

/** The example id of an operation's path parameter, as the document gives it. */
function parameterExampleOf(id: string, name: string): string {
  const op = api.operations.find((o) => o.id === id)!;
  const parameter = api.parametersOf(op.operation).find((p) => p.in === "path" && p.name === name)!;
  return String(api.parameterExample(parameter));
}

/** Every read of tenant A's sandbox, with the examples' ids made real: operation id → status and body. */
async function readsOfA(): Promise<Map<string, { status: number; body: unknown }>> {
  const reads = new Map<string, { status: number; body: unknown }>();
  for (const op of api.operations.filter((o) => o.method === "GET")) {
    const { result } = await runner.send(op);
    reads.set(op.id, {
      status: result.status,
      body:
        op.id === "AuditEvents_List"
          ? unsealed(result.body)
          : op.id === "AuditEvents_Export"
            ? unsealed({ data: itemsOf(op, result.body) })
            : result.body,
    });
  }
  return reads;
}

/** Audit events as recorded, without their place in the chain, which the seal adds about a second later. */
function unsealed(body: unknown): unknown {
  const page = body as { data?: Record<string, unknown>[] };
  if (!Array.isArray(page?.data)) return body;
  return { ...page, data: page.data.map(({ sequence: _s, integrity: _i, ...event }) => event) };
}

const json = (value: unknown) =>
  JSON.stringify(value, (_, v) =>
    typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v,
  );

/**
 * The rows of tenant A's sandbox in every table that holds a tenant (and environment), and every row of
 * the tables that hold none: what a call from another tenant or environment must leave as it was. But
 * the rows every call changes: an API key's last use, a key's rate-limit budget (on PostgreSQL), and the
 * audit trail, which records every state-changing call, refused ones too (its own test:
 * audit-events.test.ts), and seals A's earlier events meanwhile.
 */
const CHANGED_BY_EVERY_CALL = new Set(["ApiKey", "rate_limits", "AuditEvent", "AuditChainHead"]);

async function rowsOfA(): Promise<Record<string, string[]>> {
  const prisma = t.server.database.prisma;
  const columns = await prisma.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'`,
  );
  const tables = new Map<string, Set<string>>();
  for (const c of columns)
    tables.set(c.table_name, (tables.get(c.table_name) ?? new Set()).add(c.column_name));
  const rows: Record<string, string[]> = {};
  for (const [table, names] of [...tables].sort(([a], [b]) => a.localeCompare(b))) {
    if (CHANGED_BY_EVERY_CALL.has(table)) continue;
    const where = [
      ...(names.has("tenantId") ? [`"tenantId" = '${t.tenantId}'`] : []),
      ...(names.has("environment") ? [`"environment" = 'sandbox'`] : []),
    ];
    const found = await prisma.$queryRawUnsafe<Json[]>(
      `SELECT * FROM "${table}" ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}`,
    );
    rows[table] = found.map(json).sort();
  }
  return rows;
}

/** Offer (authorization code) → PAR → authorize at `active`, given an authorization page: the interaction. */
async function interactionAt(active: ActiveIssuer, key: string): Promise<string> {
  const page = await call(t, "PATCH", `/management/issuers/${active.issuerId}`, {
    key,
    body: { authorizationPage: { url: "https://login.acme.example/consent" } },
  });
  if (page.status !== 200) throw new Error(`authorization page: ${json(page.body)}`);
  const created = await createTransaction(t, key, active, { grant: "authorizationCode" });
  const offer = await resolveOffer(created.credentialOffer);
  const as = (await fetchJson(wellKnown("oauth-authorization-server", active.credentialIssuer))).body;
  const wallet = { client_id: "wallet-client", redirect_uri: "https://wallet.example/cb" };
  const pushed = await fetchJson(as.pushed_authorization_request_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      ...wallet,
      response_type: "code",
      code_challenge: pkceChallengeOf(randomBytes(32).toString("base64url")),
      code_challenge_method: "S256",
      issuer_state: offer.grants.authorization_code.issuer_state,
    }).toString(),
  });
  if (pushed.status !== 201) throw new Error(`PAR: ${json(pushed.body)}`);
  const authorize = new URL(as.authorization_endpoint);
  authorize.search = new URLSearchParams({
    client_id: wallet.client_id,
    request_uri: pushed.body.request_uri,
  }).toString();
  const sent = await fetch(authorize, { redirect: "manual" });
  const interaction = new URL(sent.headers.get("location") ?? "http://none").searchParams.get("interaction");
  if (!interaction) throw new Error(`authorize: ${sent.status} ${sent.headers.get("location")}`);
  return interaction;
}

beforeAll(async () => {
  t = await startTestServer();
  const loaded = await loadOpenApi(t);
  const isPlatform = (op: Operation) =>
    ((op.operation["x-required-scopes"] as string[] | undefined) ?? []).includes("platform.manage");
  const isTeam = (op: Operation) =>
    ((op.operation["x-required-scopes"] as string[] | undefined) ?? []).includes("staff.manage");
  platformOperations = loaded.operations.filter(isPlatform);
  teamOperations = loaded.operations.filter(isTeam);
  api = { ...loaded, operations: loaded.operations.filter((op) => !isPlatform(op) && !isTeam(op)) };
  keyA = t.adminKey;
  const ca = await createTestCertificateAuthority("CN=Acme Issuing CA");
  // TrustSources_Create's list is one served here (the example's at example.com cannot be fetched).
  trustedList = await servedTrustedList();
  runner = exampleRunner(t, api, keyA, {
    ...ownSigningCertificate(t, keyA, ca),
    ...trustedList.madeForTheCaller,
  });
  // One of everything in A's sandbox, from the examples; nothing deleted (deletes undo what was made).
  setup = await runner.run(api.operations.filter((op) => op.method !== "DELETE"));

  // What no example makes. A credential is made by a wallet redeeming an offer.
  const active = await activeIssuer(t, keyA);
  const issued = await issueCredential(t, keyA, active);
  runner.made.set(parameterExampleOf("Credentials_Revoke", "credentialId"), issued.credentialId);
  // An interaction is handed to the browser of a wallet starting an authorization at an issuer with an
  // authorization page.
  const complete = api.operations.find((op) => op.id === "Authorizations_Complete")!;
  runner.made.set(
    (api.bodyExample(complete.operation).value as Json).interaction,
    await interactionAt(active, keyA),
  );
  // A delivery is made by the webhook worker (not run here) from an event; one is written as it would.
  const subscriptionId = runner.made.get(parameterExampleOf("Webhooks_Get", "subscriptionId"))!;
  const deliveryId = newId("whd");
  await t.server.database.prisma.webhookDelivery.create({
    data: {
      id: deliveryId,
      tenantId: t.tenantId,
      environment: "sandbox",
      subscriptionId,
      eventId: newId("evt"),
      eventType: "verification.session.verified",
      status: "failed",
      attempts: 1,
      lastAttemptAt: new Date(),
      lastResponseStatus: 500,
    },
  });
  runner.made.set(parameterExampleOf("WebhookDeliveries_Redeliver", "deliveryId"), deliveryId);

  foreign = [
    { name: "tenant B", key: (await t.otherTenant()).key },
    { name: "tenant A production", key: await t.key({ environment: "production" }) },
  ];
}, 60_000);
afterAll(async () => {
  await Promise.all([t?.close(), trustedList?.close()]);
});

describe("tenant and environment isolation of every REST operation (from openapi.json)", () => {
  it("exempts exactly the platform operations, each with its reason, and refuses them to every tenant key", async () => {
    expect(platformOperations.map((op) => op.id).sort()).toEqual(Object.keys(PLATFORM_OPERATIONS).sort());
    for (const reason of Object.values(PLATFORM_OPERATIONS)) expect(reason.length).toBeGreaterThan(20);
    for (const caller of [{ name: "tenant A sandbox", key: keyA }, ...foreign]) {
      for (const op of platformOperations) {
        const { result } = await runner.send(op, caller.key);
        expect([caller.name, op.id, result.status]).toEqual([caller.name, op.id, 403]);
        expect(errorCode(result)).toBe("MissingScope");
      }
    }
  });

  it("exempts exactly the team operations, each with its reason, and refuses them to every key here (none can hold staff.manage)", async () => {
    expect(teamOperations.map((op) => op.id).sort()).toEqual(Object.keys(TEAM_OPERATIONS).sort());
    for (const reason of Object.values(TEAM_OPERATIONS)) expect(reason.length).toBeGreaterThan(20);
    for (const caller of [{ name: "tenant A sandbox", key: keyA }, ...foreign]) {
      for (const op of teamOperations) {
        const { result } = await runner.send(op, caller.key);
        expect([caller.name, op.id, result.status]).toEqual([caller.name, op.id, 403]);
        expect(errorCode(result)).toBe("MissingScope");
      }
    }
  });

  it("covers every operation: by its path's resource, as a list or singleton read, or as listed here", () => {
    const unclassified = api.operations
      .filter((op) => !hasPathParameter(op) && op.method !== "GET")
      .filter((op) => !(op.id in COLLECTION_OPERATIONS) && !(op.id in NOT_EXERCISED))
      .map((op) => op.id);
    expect(unclassified, "name each new collection operation in COLLECTION_OPERATIONS").toEqual([]);
    const stale = [...Object.keys(NOT_EXERCISED), ...Object.keys(COLLECTION_OPERATIONS)].filter(
      (id) => !api.operations.some((op) => op.id === id),
    );
    expect(stale).toEqual([]);
    const both = Object.keys(NOT_EXERCISED).filter((id) => id in COLLECTION_OPERATIONS);
    expect(both).toEqual([]);
    for (const [id, reason] of Object.entries(NOT_EXERCISED)) expect(reason.length, id).toBeGreaterThan(20);
    expect(resourceOperations().length).toBeGreaterThanOrEqual(31);
    expect(api.operations.filter(isList).map((op) => op.id)).toContain("WebhookDeliveries_List");
    expect(api.operations.filter(isList).map((op) => op.id)).toContain("AuditEvents_Export");
  });

  it("tenant A's sandbox holds every resource an operation names: each read answers 200, each made id is real", async () => {
    const missing: string[] = [];
    for (const op of resourceOperations()) {
      // The read of the resource the operation names: the GET whose path is the longest start of its own.
      const read = api.operations
        .filter((o) => o.method === "GET" && hasPathParameter(o) && `${op.path}/`.startsWith(`${o.path}/`))
        .sort((a, b) => b.path.length - a.path.length)[0];
      if (read) {
        const r = await runner.send(read);
        if (r.result.status !== 200) missing.push(`${op.id}: ${read.id} ${r.result.status}`);
      } else {
        // No read: each id it names must be one the server made for A.
        for (const parameter of api.parametersOf(op.operation).filter((p) => p.in === "path")) {
          if (!runner.made.has(String(api.parameterExample(parameter))))
            missing.push(`${op.id}: ${parameter.name} was not made`);
        }
      }
    }
    expect(missing).toEqual([]);
    // The examples made what they make (as openapi-examples.test.ts checks), so the calls below name them.
    expect(setup.get("Issuers_Create")?.status).toBe(201);
    expect(setup.get("IssuanceTransactions_Create")?.status).toBe(201);
  });

  it("404 with the ErrorEnvelope for every operation naming a resource of A's sandbox, from tenant B and from A's production; A's resources unchanged", async () => {
    const readsBefore = await readsOfA();
    // A read that answers differently when asked twice (a fresh signature) is compared by status alone.
    const readsAgain = await readsOfA();
    const volatile = [...readsBefore.keys()].filter(
      (id) => json(readsBefore.get(id)) !== json(readsAgain.get(id)),
    );
    expect(volatile).toEqual(["Issuers_GetCertificateSigningRequest"]);
    const rowsBefore = await rowsOfA();

    const leaks: string[] = [];
    /** The error code of a documented ErrorEnvelope whose requestId is the x-ms-request-id header. */
    const codeOf = (result: CallResult) => {
      try {
        return errorCode(result);
      } catch {
        return undefined;
      }
    };
    // The creates name A's resources: made ids put in the example's place, or (these two) the example's
    // own identifiers, which A's sandbox holds (organisation acme-bank, policy over-18).
    const namingByIdentifier: string[] = [];
    for (const op of collectionOperations("namesInBody")) {
      const { body } = await runner.request(op);
      if (json(body) === json(api.bodyExample(op.operation).value)) namingByIdentifier.push(op.id);
    }
    expect(namingByIdentifier.sort()).toEqual(["Issuers_Create", "Verifications_Create"]);

    for (const caller of foreign) {
      for (const op of resourceOperations()) {
        const { target, result } = await runner.send(op, caller.key);
        // NotFound, as for an id that names nothing (RouteNotFound: the path was no operation's).
        if (result.status !== 404 || codeOf(result) !== "NotFound")
          leaks.push(
            `${caller.name}: ${op.id} ${op.method} ${target} → ${result.status} ${json(result.body)}`,
          );
      }
      for (const op of collectionOperations("namesInBody")) {
        const { result } = await runner.send(op, caller.key);
        // The same request with the example's own ids, which name nothing anywhere.
        const { body } = await runner.request(op);
        const absent = await call(t, op.method, op.path, {
          key: caller.key,
          body: api.bodyExample(op.operation).value,
        });
        const codes = (r: CallResult) =>
          json([r.status, r.body?.error?.code, r.body?.error?.details?.map((d: Json) => d.code)]);
        if (![400, 404].includes(result.status) || !codeOf(result) || codes(result) !== codes(absent))
          leaks.push(
            `${caller.name}: ${op.id} naming A's resources → ${result.status} ${json(result.body)}; naming none → ${json(absent.body)}; sent ${json(body)}`,
          );
      }
    }
    expect(leaks).toEqual([]);

    expect(await rowsOfA()).toEqual(rowsBefore);
    const readsAfter = await readsOfA();
    for (const [id, before] of readsBefore) {
      const after = readsAfter.get(id)!;
      if (volatile.includes(id)) expect([id, after.status]).toEqual([id, before.status]);
      else expect([id, after]).toEqual([id, before]);
    }
  });

  it("no list of tenant B or of A's production holds a resource of A's sandbox", async () => {
    const identity = (item: Json) => (typeof item.id === "string" ? item.id : json(item));
    const problems: string[] = [];
    for (const op of api.operations.filter(isList)) {
      const { target } = await runner.request(op);
      // As the example asks (filters naming A's resources, e.g. a subscription id), and unfiltered.
      for (const path of [target, target.replace(/\?.*$/, "")]) {
        const own = await call(t, "GET", path, { key: keyA });
        expect([op.id, path, own.status]).toEqual([op.id, path, 200]);
        const mine = new Set(itemsOf(op, own.body).map(identity));
        // The check can fail: A's list holds what A made.
        expect([op.id, path, mine.size > 0]).toEqual([op.id, path, true]);
        for (const caller of foreign) {
          const r = await call(t, "GET", path, { key: caller.key });
          if (r.status !== 200) {
            problems.push(`${caller.name}: ${op.id} ${path} → ${r.status} ${json(r.body)}`);
            continue;
          }
          const leaked = itemsOf(op, r.body)
            .map(identity)
            .filter((id) => mine.has(id));
          if (leaked.length > 0) problems.push(`${caller.name}: ${op.id} ${path} lists ${leaked.join(", ")}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("no singleton read of tenant B or of A's production answers with A's sandbox's", async () => {
    const singletons = api.operations.filter(
      (op) => op.method === "GET" && !hasPathParameter(op) && !isList(op),
    );
    expect(singletons.map((op) => op.id)).toContain("VerifierCertificates_Get");
    const problems: string[] = [];
    for (const op of singletons) {
      const { target, result: own } = await runner.send(op);
      expect([op.id, own.status]).toEqual([op.id, 200]);
      for (const caller of foreign) {
        const r = await call(t, "GET", target, { key: caller.key });
        if (r.status === 200 && json(r.body.data) === json(own.body.data))
          problems.push(`${caller.name}: ${op.id} answers with A's sandbox's`);
        else if (r.status !== 200 && r.status !== 404)
          problems.push(`${caller.name}: ${op.id} → ${r.status} ${json(r.body)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("identifiers are per tenant and environment: a create naming nothing succeeds with A's very identifiers", async () => {
    const rowsBefore = await rowsOfA();
    const refused: string[] = [];
    for (const caller of foreign) {
      for (const op of collectionOperations("namesNothing")) {
        const { result } = await runner.send(op, caller.key);
        if (result.status >= 300)
          refused.push(`${caller.name}: ${op.id} → ${result.status} ${json(result.body)}`);
      }
    }
    expect(refused).toEqual([]);
    // What A's production made is A's, in production; A's sandbox rows are as they were.
    expect(await rowsOfA()).toEqual(rowsBefore);
  });
});
