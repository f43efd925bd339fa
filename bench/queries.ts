// pnpm bench:queries — SQL statements and database transactions per request, step by step.
// Runs the server in this process (apps/api createServer) with the Prisma driver adapter wrapped, then
// walks each flow sequentially so that every statement belongs to exactly one request.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createProofJwt } from "@cred/oid4vc";
import { createClient } from "./http";
import { API_VERSION, CLAIMS, setupOurs } from "./ours";
import { freshPostgresDatabase } from "./postgres";
import { holderKeys, verifyOnce } from "./workloads";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dbPkg = path.join(ROOT, "packages/db/node_modules");
const usePostgres = process.argv.includes("--postgres");
const ROUNDS = 20;

interface Counter {
  statements: number;
  transactions: number;
  sql: Map<string, number>;
}
let counter: Counter = { statements: 0, transactions: 0, sql: new Map() };
const norm = (sql: string) =>
  sql
    .replace(/\s+/g, " ")
    .replace(/"public"\./g, "")
    .slice(0, 110);
const count = (sql: string) => {
  counter.statements++;
  const key = norm(sql);
  counter.sql.set(key, (counter.sql.get(key) ?? 0) + 1);
};

/** Wraps queryRaw/executeRaw of every adapter and transaction the factory hands to Prisma. */
function instrument(Factory: { prototype: { connect(): Promise<any> } }) {
  const wrap = (q: any) => {
    for (const m of ["queryRaw", "executeRaw"]) {
      const orig = q[m].bind(q);
      q[m] = (query: { sql: string }) => {
        count(query.sql);
        return orig(query);
      };
    }
    return q;
  };
  const connect = Factory.prototype.connect;
  Factory.prototype.connect = async function (this: unknown) {
    const adapter = wrap(await connect.call(this));
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (...args: unknown[]) => {
      counter.transactions++;
      return wrap(await start(...args));
    };
    return adapter;
  };
}

// Prisma talks to both databases through the pg adapter (the embedded one runs in a thread of its own
// behind pg connections: packages/db/src/embedded-thread).
const adapterModule = "@prisma/adapter-pg/dist/index.mjs";
const adapter = await import(pathToFileURL(fs.realpathSync(path.join(dbPkg, adapterModule))).href);
instrument(adapter.PrismaPg);

const { createServer } = await import("../apps/api/src/server");
const { bootstrap } = await import("../packages/core/src/index");

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cred-queries-"));
const pg = usePostgres ? await freshPostgresDatabase() : undefined;
const server = await createServer({
  databaseUrl: pg?.url,
  dataDir,
  masterKey: randomBytes(32),
  publicBaseUrl: "http://127.0.0.1",
  developmentMode: true,
  logLevel: "warn",
  rateLimit: { points: 10_000_000, durationSeconds: 1 },
});
// The driver fast path (hot single statements that bypass Prisma) is counted too, marked "fast:".
const fast = server.database.root.sql;
const fastQuery = fast.query.bind(fast);
fast.query = ((text: string, params?: never[]) => {
  count(`fast: ${text}`);
  return fastQuery(text, params);
}) as typeof fast.query;
await server.app.listen({ host: "127.0.0.1", port: 0 });
const baseUrl = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
server.deps.config.publicBaseUrl = baseUrl;
const boot = await bootstrap(server.database.root);
const target = await setupOurs(baseUrl, boot!.apiKey);
const client = createClient(1);
const auth = { authorization: `ApiKey ${target.apiKey}` };
const keys = await holderKeys(1);
const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

const perStep = new Map<
  string,
  { statements: number; transactions: number; ms: number; n: number; sql: Map<string, number> }
>();
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  counter = { statements: 0, transactions: 0, sql: new Map() };
  const t0 = performance.now();
  const value = await fn();
  const s = perStep.get(name) ?? { statements: 0, transactions: 0, ms: 0, n: 0, sql: new Map() };
  s.statements += counter.statements;
  s.transactions += counter.transactions;
  s.ms += performance.now() - t0;
  s.n++;
  for (const [k, v] of counter.sql) s.sql.set(k, (s.sql.get(k) ?? 0) + v);
  perStep.set(name, s);
  return value;
}

for (let round = 0; round < ROUNDS + 2; round++) {
  if (round === 2) perStep.clear(); // the first rounds warm caches (issuer key import, JIT)
  const tx = (
    await step("IssuanceTransactions_Create", () =>
      client.json("POST", `${baseUrl}/v1.0/issuance-transactions`, {
        headers: auth,
        body: { credentialConfiguration: target.configuration, issuerId: target.issuerId, claims: CLAIMS },
        expect: 201,
      }),
    )
  ).data;
  const offerUri = new URL(tx.credentialOffer).searchParams.get("credential_offer_uri")!;
  const offer = await step("GET offer", () => client.json("GET", offerUri));
  const token = await step("POST token", () =>
    client.json("POST", target.tokenEndpoint, {
      form: { grant_type: PRE_AUTH, "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"] },
    }),
  );
  const { c_nonce } = await step("POST nonce", () => client.json("POST", target.nonceEndpoint));
  const proof = await createProofJwt({
    privateKey: keys[0]!.privateKey,
    publicJwk: keys[0]!.publicJwk,
    audience: target.credentialIssuer,
    nonce: c_nonce,
    iat: Math.floor(Date.now() / 1000),
  });
  const credentialRes = await step("POST credential", () =>
    client.json("POST", target.credentialEndpoint, {
      headers: { authorization: `Bearer ${token.access_token}` },
      body: { credential_configuration_id: target.configuration, proofs: { jwt: [proof] } },
    }),
  );
  const issued = credentialRes.credentials[0].credential as string;
  // The test wallet's request-object fetch and direct_post.jwt are counted together.
  await verifyOnce(target, client, keys[0]!, issued, step);
  const read = await client.json("GET", `${baseUrl}/v1.0/issuance-transactions/${tx.id}`, { headers: auth });
  const revoked = await step("Credentials_Revoke", () =>
    client.json("POST", `${baseUrl}/v1.0/credentials/${read.data.credentialId}/revoke`, { headers: auth }),
  );
  await step("GET status list (after a revocation)", () =>
    client.send("GET", revoked.data.statusList.uri, { headers: { accept: "application/statuslist+jwt" } }),
  );
  await step("Issuers_Get", () =>
    client.json("GET", `${baseUrl}/management/issuers/${target.issuerId}?api-version=${API_VERSION}`, {
      headers: auth,
    }),
  );
  await step("Organisations_List", () =>
    client.json("GET", `${baseUrl}/management/organisations?api-version=${API_VERSION}`, { headers: auth }),
  );
}

const lines = [
  `# SQL per request (${usePostgres ? "PostgreSQL" : "embedded PGlite"}, ${ROUNDS} sequential rounds, averages)`,
  "",
  "| request | statements | transactions | ms (sequential, in-process) |",
  "| --- | ---: | ---: | ---: |",
  ...[...perStep].map(
    ([name, s]) =>
      `| ${name} | ${(s.statements / s.n).toFixed(1)} | ${(s.transactions / s.n).toFixed(1)} | ${(s.ms / s.n).toFixed(1)} |`,
  ),
  "",
  ...[...perStep].flatMap(([name, s]) => [
    `## ${name}`,
    "",
    ...[...s.sql].map(([sql, n]) => `- ${(n / s.n).toFixed(1)}× \`${sql}\``),
    "",
  ]),
];
const outDir = path.join(ROOT, "bench/results");
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(
  path.join(outDir, `queries-${usePostgres ? "postgres" : "embedded"}.md`),
  `${lines.join("\n")}\n`,
);
process.stdout.write(`${lines.slice(0, perStep.size + 4).join("\n")}\n`);
await client.close();
await server.close();
await pg?.drop();
fs.rmSync(dataDir, { recursive: true, force: true });
