// Text PostgreSQL cannot hold (U+0000 anywhere, an unpaired surrogate in jsonb) is refused where it enters,
// with 400 and the documented shape naming where it was, on every REST operation (read from openapi.json,
// so a new operation is covered without touching this file), every wallet endpoint and the console; never
// a 500 (docs/api/errors.md, "Text the database cannot store").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { type CallResult, call, errorCode, startTestServer, type TestServer } from "./harness";
import { resolveOffer } from "./wallet-client";

interface Operation {
  id: string;
  method: string;
  /** The path template, `{name}` for each parameter. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** Top-level members of the JSON body (empty for an operation without one). */
  bodyMembers: string[];
}

type Schema = { $ref?: string; properties?: Record<string, unknown> };

let t: TestServer;
let issuer: ActiveIssuer;
let operations: Operation[];
const errorsLogged: unknown[] = [];

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  const doc = (await call(t, "GET", "/openapi.json")).body as {
    paths: Record<string, Record<string, any>>;
    components: { schemas: Record<string, Schema> };
  };
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()!] : schema;
  operations = Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const parameters = (op.parameters ?? []) as { in: string; name: string; $ref?: string }[];
      const content = op.requestBody?.content ?? {};
      const schema = resolve((Object.values(content)[0] as { schema?: Schema } | undefined)?.schema);
      return {
        id: op.operationId as string,
        method: method.toUpperCase(),
        template,
        pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        queryParams: parameters.filter((p) => p.in === "query").map((p) => p.name),
        bodyMembers: Object.keys(schema?.properties ?? {}),
      };
    }),
  );
  // Every refusal here is expected: none may be logged as an error (each 500 was, with a stack trace).
  const log = t.server.app.log as unknown as { error: (...args: unknown[]) => void };
  const original = log.error.bind(log);
  log.error = (...args: unknown[]) => {
    errorsLogged.push(args);
    original(...args);
  };
});
afterAll(() => t?.close());

const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";
const BAD_TEXT = [NUL, LONE_SURROGATE];

const pathOf = (op: Operation, bad?: { param: string; value: string }) =>
  op.template.replace(/\{([^}]+)\}/g, (_, name) => (bad && bad.param === name ? bad.value : "probe"));

/** Asserts a 400 ValidationFailed whose one detail is InvalidCharacter at `target`. */
function expectRefusedAt(label: string, r: CallResult, target: string) {
  expect([label, r.status]).toEqual([label, 400]);
  expect(errorCode(r)).toBe("ValidationFailed");
  expect([label, r.body.error.details]).toEqual([
    label,
    [{ code: "InvalidCharacter", target, message: expect.stringContaining(`'${target}'`) }],
  ]);
}

/** Asserts the OAuth error shape a wallet reads, with `code`, naming `where` in the description. */
function expectOAuthRefusal(
  label: string,
  r: { status: number; headers: Headers; body: any },
  code: string,
  where: string,
) {
  expect([label, r.status]).toEqual([label, 400]);
  expect([label, r.body]).toEqual([
    label,
    { error: code, error_description: expect.stringContaining(where) },
  ]);
  expect(r.headers.get("cache-control")).toBe("no-store");
  expect(r.headers.get("x-ms-request-id")).toMatch(/^[0-9a-f-]{36}$/);
}

describe("REST operations (every one in openapi.json)", () => {
  it("covers the operations that take a body, a path parameter and a query parameter", () => {
    expect(operations.length).toBeGreaterThanOrEqual(31);
    expect(operations.filter((op) => op.bodyMembers.length > 0).length).toBeGreaterThanOrEqual(15);
    expect(operations.find((op) => op.id === "IssuanceTransactions_Create")?.bodyMembers).toEqual(
      expect.arrayContaining(["callbackReference", "externalSubjectReference", "claims"]),
    );
    expect(operations.find((op) => op.id === "WebhookDeliveries_List")?.queryParams).toEqual(
      expect.arrayContaining(["status", "eventType", "subscriptionId"]),
    );
  });

  it("refuses U+0000 and an unpaired surrogate in each body member, nested, and in a member name", async () => {
    for (const op of operations.filter((o) => o.method !== "GET" && o.method !== "DELETE")) {
      for (const bad of BAD_TEXT) {
        const send = (body: unknown) => call(t, op.method, pathOf(op), { key: t.adminKey, body });
        for (const member of op.bodyMembers) {
          expectRefusedAt(`${op.id} ${member}`, await send({ [member]: bad }), member);
        }
        const nested = await send({ [op.bodyMembers[0] ?? "any"]: { inner: ["ok", bad] } });
        expectRefusedAt(`${op.id} nested`, nested, `${op.bodyMembers[0] ?? "any"}.inner.1`);
        const name = bad === NUL ? "a\\u0000b" : "a\\ud800b";
        expectRefusedAt(`${op.id} member name`, await send({ [bad]: 1 }), name);
      }
    }
  });

  it("refuses %00 in each path parameter and each query parameter, naming it", async () => {
    for (const op of operations) {
      const body = op.method === "GET" || op.method === "DELETE" ? undefined : {};
      for (const param of op.pathParams) {
        const r = await call(t, op.method, pathOf(op, { param, value: "a%00b" }), { key: t.adminKey, body });
        expectRefusedAt(`${op.id} path ${param}`, r, param);
      }
      for (const param of op.queryParams) {
        const r = await call(t, op.method, `${pathOf(op)}?${param}=a%00b`, { key: t.adminKey, body });
        expectRefusedAt(`${op.id} query ${param}`, r, param);
      }
    }
  });

  it("answers an encoded surrogate in the URL without a 500 (it decodes to U+FFFD or not at all)", async () => {
    for (const op of operations) {
      const body = op.method === "GET" || op.method === "DELETE" ? undefined : {};
      const targets = [
        ...op.pathParams.map((param) => pathOf(op, { param, value: "a%ED%A0%80b" })),
        ...op.queryParams.map((param) => `${pathOf(op)}?${param}=a%ED%A0%80b`),
      ];
      for (const target of targets) {
        const r = await call(t, op.method, target, { key: t.adminKey, body });
        expect([op.id, target, r.status < 500]).toEqual([op.id, target, true]);
        if (r.status >= 400) errorCode(r);
      }
    }
  });

  it("refuses before authentication, as a malformed body is", async () => {
    const r = await call(t, "POST", "/v1.0/issuance-transactions", {
      key: null,
      body: { credentialConfiguration: issuer.configuration, callbackReference: LONE_SURROGATE },
    });
    expectRefusedAt("unauthenticated", r, "callbackReference");
  });

  it("still takes escaped characters that are storable (é, an escaped emoji pair, a literal backslash-u)", async () => {
    const r = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      rawBody: '{"reference":"escapes-ok","displayName":"Caf\\u00e9 \\ud83d\\ude00 \\\\u0000"}',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.displayName).toBe("Café 😀 \\u0000");
  });
});

describe("wallet endpoints", () => {
  const form = (body: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
  const json = (body: unknown) => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  async function fetchAt(path: string, init: RequestInit = {}) {
    const res = await fetch(`${t.baseUrl}${path}`, { redirect: "manual", ...init });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body: body as any };
  }

  it("refuses %00 in the path of every document a browser or relying party reads, in the envelope", async () => {
    const id = issuer.issuerId;
    for (const [path, target] of [
      ["/.well-known/openid-credential-issuer/issuers/a%00b", "issuerId"],
      ["/issuers/a%00b/.well-known/openid-credential-issuer", "issuerId"],
      ["/.well-known/oauth-authorization-server/issuers/a%00b", "issuerId"],
      ["/issuers/a%00b/.well-known/oauth-authorization-server", "issuerId"],
      ["/.well-known/jwt-vc-issuer/issuers/a%00b", "issuerId"],
      [`/issuers/${id}/credentials/a%00b`, "identifier"],
      [`/issuers/${id}/offers/a%00b`, "handle"],
      [`/issuers/${id}/status-lists/a%00b`, "listId"],
      ["/issuers/a%00b/status-lists/sl_x", "issuerId"],
    ] as const) {
      expectRefusedAt(path, await fetchAt(path), target);
    }
    // Query parameters of the browser endpoints, too.
    expectRefusedAt("authorize", await fetchAt(`/issuers/${id}/authorize?client_id=a%00b`), "client_id");
    expectRefusedAt("return", await fetchAt(`/issuers/${id}/authorize/return?result=a%00b`), "result");
  });

  it("refuses %00 in the path of every OAuth endpoint, in the OAuth shape", async () => {
    for (const [path, code] of [
      ["/issuers/a%00b/token", "invalid_request"],
      ["/issuers/a%00b/par", "invalid_request"],
      ["/issuers/a%00b/challenge", "invalid_request"],
      ["/issuers/a%00b/nonce", "invalid_request"],
      ["/issuers/a%00b/credential", "invalid_credential_request"],
      ["/issuers/a%00b/deferred-credential", "invalid_credential_request"],
      ["/issuers/a%00b/notification", "invalid_notification_request"],
      ["/verifier/requests/a%00bcdefghijklmnopq", "invalid_request"],
      ["/verifier/responses/a%00bcdefghijklmnopq", "invalid_request"],
    ] as const) {
      expectOAuthRefusal(path, await fetchAt(path, form({ x: "1" })), code, "path parameter");
    }
    const get = await fetchAt("/verifier/requests/a%00bcdefghijklmnopq");
    expectOAuthRefusal("GET request object", get, "invalid_request", "'handle'");
  });

  it("refuses U+0000 in form parameters and U+0000 or an unpaired surrogate in JSON members", async () => {
    const base = `/issuers/${issuer.issuerId}`;
    for (const [path, parameter] of [
      [`${base}/token`, "pre-authorized_code"],
      [`${base}/par`, "client_id"],
      ["/verifier/requests/abcdefghijklmnopqrstu", "wallet_nonce"],
      ["/verifier/responses/abcdefghijklmnopqrstu", "vp_token"],
    ] as const) {
      const r = await fetchAt(path, form({ grant_type: "x", [parameter]: NUL }));
      expectOAuthRefusal(path, r, "invalid_request", `form parameter '${parameter}'`);
    }
    for (const bad of BAD_TEXT) {
      for (const [path, code] of [
        [`${base}/credential`, "invalid_credential_request"],
        [`${base}/deferred-credential`, "invalid_credential_request"],
        [`${base}/notification`, "invalid_notification_request"],
      ] as const) {
        const r = await fetchAt(path, json({ proofs: { jwt: ["x", bad] }, notification_id: "n" }));
        expectOAuthRefusal(path, r, code, "'proofs.jwt.1'");
      }
    }
    // An encrypted credential request is a compact JWE, read as text.
    const jwe = await fetchAt(`${base}/credential`, {
      method: "POST",
      headers: { "content-type": "application/jwt" },
      body: "eyJ\u0000.a.b.c.d",
    });
    expectOAuthRefusal("application/jwt", jwe, "invalid_credential_request", "request body");
  });

  it("answers text inside a JSON-valued form parameter, which the database refuses, with 400", async () => {
    // authorization_details is JSON in a form: its escapes reach the database as text the edge cannot see.
    const created = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
    const offer = await resolveOffer(created.credentialOffer);
    const r = await fetchAt(
      `/issuers/${issuer.issuerId}/par`,
      form({
        response_type: "code",
        client_id: "wallet-client",
        redirect_uri: "https://wallet.example/callback",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        issuer_state: offer.grants.authorization_code.issuer_state,
        authorization_details: JSON.stringify([
          { type: "openid_credential", credential_configuration_id: issuer.configuration, note: NUL },
        ]),
      }),
    );
    expectOAuthRefusal("authorization_details", r, "invalid_request", "NUL character");
  });
});

describe("console", () => {
  it("refuses U+0000 in a query's JSON input and a mutation's body, before the session is read", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { reference: NUL } }));
    const query = await call(t, "GET", `/trpc/organisations.get?input=${input}`);
    expectRefusedAt("query input", query, "input.json.reference");
    const mutation = await call(t, "POST", "/trpc/organisations.create", {
      body: { json: { reference: "x", displayName: LONE_SURROGATE } },
    });
    expectRefusedAt("mutation body", mutation, "json.displayName");
  });
});

describe("logging", () => {
  it("logs none of these refusals as an error", () => {
    expect(errorsLogged).toEqual([]);
  });
});
