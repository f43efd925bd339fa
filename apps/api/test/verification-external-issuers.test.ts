import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { runVerificationEngine } from "@cred/core/testing";
import { generateEs256KeyPair, issueSdJwtVc, signStatusListToken } from "@cred/oid4vc";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineSessionFor } from "./fixtures";
import { verifierFixture } from "./fixtures/verifier";
import { call, type TestServer } from "./harness";

/** Credentials of issuers outside the platform: keys and status lists fetched over the network. */

let t: TestServer;

const { setUp } = verifierFixture();

beforeAll(async () => {
  ({ t } = await setUp());
});
afterAll(() => t?.close());

describe("external issuers over the network (engine, loopback servers allowed in development mode)", () => {
  let server: http.Server;
  let base: string;
  const routes = new Map<string, { type: string; body: string; status?: number }>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const route = routes.get(req.url ?? "");
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(route.status ?? 200, { "content-type": route.type }).end(route.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** An engine session for one `pid` credential of type `vct` from these JWKS, its status checked. */
  type Keys = Awaited<ReturnType<typeof generateEs256KeyPair>>;
  /** A credential of `vct` from https://external.example, signed by `keys` under their kid, valid an hour. */
  const externalCredential = (
    keys: Keys,
    vct: string,
    extra: Partial<Parameters<typeof issueSdJwtVc>[0]> = {},
  ) => {
    const now = Math.floor(Date.now() / 1000);
    return issueSdJwtVc({
      privateKey: keys.privateKey,
      kid: keys.publicJwk.kid!,
      iss: "https://external.example",
      vct,
      iat: now,
      exp: now + 3600,
      claims: { given_name: "Erika" },
      disclosable: [["given_name"]],
      ...extra,
    });
  };

  const statusCheckedSession = (vct: string, jwksUris: string[]) =>
    engineSessionFor(
      { tenantId: t.tenantId, environment: "sandbox" },
      { credentialTypes: [vct], trustedIssuers: jwksUris.map((jwksUri) => ({ jwksUri })), checkStatus: true },
    );

  it("a credential signed without kid (SD-JWT VC §3.2 only recommends one) takes a pinned JWKS's only key", async () => {
    const [only, other] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
    const { kid: _kid, ...withoutKid } = only.publicJwk;
    // Served with 203: any 2xx is a success for a fetch (Token Status List §8.1 says so for lists).
    routes.set("/jwks-one", {
      type: "application/json",
      body: JSON.stringify({ keys: [withoutKid] }),
      status: 203,
    });
    routes.set("/jwks-two", {
      type: "application/json",
      body: JSON.stringify({ keys: [only.publicJwk, other.publicJwk] }),
    });
    const vct = "https://external.example/nokid";
    const now = Math.floor(Date.now() / 1000);
    const issuerJwt = await new SignJWT({
      iss: "https://external.example",
      vct,
      iat: now,
      exp: now + 3600,
      given_name: "Erika",
    })
      .setProtectedHeader({ alg: "ES256", typ: "dc+sd-jwt" })
      .sign(only.privateKey);
    const sessionFor = (jwksUri: string) => {
      const session = statusCheckedSession(vct, [jwksUri]);
      session.rules.credentials[0]!.checkStatus = false;
      return session;
    };
    const one = await runVerificationEngine(t.server.deps, sessionFor(`${base}/jwks-one`), {
      pid: [`${issuerJwt}~`],
    });
    expect(one.outcome, JSON.stringify(one.reasons)).toBe("verified");
    // Two keys and no kid to choose: none is taken.
    const two = await runVerificationEngine(t.server.deps, sessionFor(`${base}/jwks-two`), {
      pid: [`${issuerJwt}~`],
    });
    expect(two.outcome).toBe("rejected");
  });

  it("discards a failing presentation and decides on the rest (OpenID4VP §8.6), reporting why", async () => {
    const [trusted, stranger] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
    routes.set("/jwks-discard", {
      type: "application/json",
      body: JSON.stringify({ keys: [trusted.publicJwk] }),
    });
    const vct = "https://external.example/discard";
    const signedBy = (key: typeof trusted) => externalCredential(key, vct);
    const template = statusCheckedSession(vct, [`${base}/jwks-discard`]);
    const pid = { ...template.rules.credentials[0]!, checkStatus: false };
    const session = {
      ...template,
      rules: {
        ...template.rules,
        credentials: [pid, { ...pid, id: "extra" }],
        // pid is required; extra is welcome but optional.
        credentialSets: [
          { options: [["pid"]], required: true },
          { options: [["extra"]], required: false },
        ],
      },
    };
    const result = await runVerificationEngine(t.server.deps, session, {
      pid: [await signedBy(trusted)],
      extra: [await signedBy(stranger)],
    });
    expect(result.outcome, JSON.stringify(result.reasons)).toBe("verified");
    expect(result.credentials.map((c) => c.credentialQueryId)).toEqual(["pid"]);
    expect(result.reasons?.map((r) => r.code)).toContain("unknown_issuer_key");
    // Without the required one, the rest cannot decide for it.
    const missing = await runVerificationEngine(t.server.deps, session, {
      pid: [await signedBy(stranger)],
      extra: [await signedBy(trusted)],
    });
    expect(missing.outcome).toBe("rejected");
  });

  it("pinned JWKS by kid, remote status list (verified, then revoked after the cache ttl)", async () => {
    const issuerKeys = await generateEs256KeyPair();
    const kid = issuerKeys.publicJwk.kid!;
    routes.set("/jwks", { type: "application/json", body: JSON.stringify({ keys: [issuerKeys.publicJwk] }) });
    const bytes = new Uint8Array(16);
    const statusUri = `${base}/status/1`;
    const publishStatus = async (ttl: number) =>
      routes.set("/status/1", {
        type: "application/statuslist+jwt",
        body: await signStatusListToken({
          privateKey: issuerKeys.privateKey,
          kid,
          sub: statusUri,
          iat: Math.floor(Date.now() / 1000),
          ttl,
          bits: 1,
          bytes,
        }),
      });
    await publishStatus(1);
    const vct = "https://external.example/pid";
    const credential = await externalCredential(issuerKeys, vct, {
      status: { idx: 5, uri: statusUri },
      claims: { given_name: "Erika", secret: "x" },
      disclosable: [["given_name"], ["secret"]],
    });
    const session = statusCheckedSession(vct, [`${base}/jwks`]);
    const presentation = `${credential}`;
    const ok = await runVerificationEngine(t.server.deps, session, { pid: [presentation] });
    expect(ok.outcome, JSON.stringify(ok.reasons)).toBe("verified");
    expect(ok.credentials[0]).toMatchObject({ issuerId: null, claims: { given_name: "Erika" } });
    expect(ok.credentials[0]!.checks.status).toBe("passed");

    bytes[0] = 0b0010_0000; // idx 5 revoked
    await publishStatus(1);
    await new Promise((r) => setTimeout(r, 1100));
    const revoked = await runVerificationEngine(t.server.deps, session, { pid: [presentation] });
    expect(revoked.outcome).toBe("rejected");
    expect(revoked.reasons?.map((r) => r.code)).toContain("credential_revoked");

    // A key that is not in the pinned JWKS is unknown.
    const stranger = await generateEs256KeyPair();
    const foreign = await externalCredential(stranger, vct);
    const unknown = await runVerificationEngine(t.server.deps, session, { pid: [foreign] });
    expect(unknown.reasons?.map((r) => r.code)).toContain("unknown_issuer_key");
  });

  it("a remote status list verified for one issuer is not reused for another issuer's credential naming it", async () => {
    // Two trusted issuers with JWKS of their own; A publishes a list, B's credential points at it.
    const [a, b] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
    routes.set("/jwks-a", { type: "application/json", body: JSON.stringify({ keys: [a.publicJwk] }) });
    routes.set("/jwks-b", { type: "application/json", body: JSON.stringify({ keys: [b.publicJwk] }) });
    const statusUri = `${base}/status/shared`;
    routes.set("/status/shared", {
      type: "application/statuslist+jwt",
      body: await signStatusListToken({
        privateKey: a.privateKey,
        kid: a.publicJwk.kid!,
        sub: statusUri,
        iat: Math.floor(Date.now() / 1000),
        ttl: 300,
        bits: 1,
        bytes: new Uint8Array(16),
      }),
    });
    const vct = "https://external.example/shared-list";
    const issue = (keys: typeof a) => externalCredential(keys, vct, { status: { idx: 5, uri: statusUri } });
    const session = statusCheckedSession(vct, [`${base}/jwks-a`, `${base}/jwks-b`]);
    const fromA = await runVerificationEngine(t.server.deps, session, { pid: [await issue(a)] });
    expect(fromA.outcome, JSON.stringify(fromA.reasons)).toBe("verified");
    // The list is cached now, but it is not signed by a key of B's: B's credential gets no status from it.
    const fromB = await runVerificationEngine(t.server.deps, session, { pid: [await issue(b)] });
    expect(fromB.outcome).toBe("rejected");
    expect(fromB.reasons?.map((r) => r.code)).toContain("status_unavailable");
    // A's credential still uses the cached list (the list is gone from the network now).
    routes.delete("/status/shared");
    const againA = await runVerificationEngine(t.server.deps, session, { pid: [await issue(a)] });
    expect(againA.outcome, JSON.stringify(againA.reasons)).toBe("verified");
  });

  it("external issuer by identifier: keys from /.well-known/jwt-vc-issuer (path insertion), iss must match", async () => {
    const issuerKeys = await generateEs256KeyPair();
    const kid = issuerKeys.publicJwk.kid!;
    const iss = `${base}/tenants/acme`;
    routes.set("/.well-known/jwt-vc-issuer/tenants/acme", {
      type: "application/json",
      body: JSON.stringify({ issuer: iss, jwks: { keys: [issuerKeys.publicJwk] } }),
    });
    const vct = "https://external.example/badge";
    const now = Math.floor(Date.now() / 1000);
    const issue = (issuer: string) =>
      issueSdJwtVc({
        privateKey: issuerKeys.privateKey,
        kid,
        iss: issuer,
        vct,
        iat: now,
        exp: now + 3600,
        claims: { given_name: "Erika", secret: "x" },
        disclosable: [["given_name"], ["secret"]],
      });
    // Through the API a policy takes an https identifier (no configuration of this type needed) …
    const policy = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: {
        identifier: "external-by-metadata",
        displayName: "External by metadata",
        credentials: [
          {
            id: "badge",
            credentialTypes: [vct],
            trustedIssuers: [{ credentialIssuer: "https://issuer.example.com/tenants/acme" }],
            requiredClaims: [["given_name"]],
            holderBindingRequired: false,
            checkStatus: false,
          },
        ],
        responseMode: "direct_post",
      },
    });
    expect(policy.status).toBe(201);
    // … and the engine resolves one served on loopback here (development mode).
    const rules = {
      ...policy.body.data.rules,
      credentials: [
        { ...policy.body.data.rules.credentials[0], trustedIssuers: [{ credentialIssuer: iss }] },
      ],
    };
    const session = {
      scope: { tenantId: t.tenantId, environment: "sandbox" as const },
      rules,
      clientId: "x509_hash:abc",
      nonce: "n".repeat(43),
    };
    const ok = await runVerificationEngine(t.server.deps, session, { badge: [await issue(iss)] });
    expect(ok.outcome, JSON.stringify(ok.reasons)).toBe("verified");
    expect(ok.credentials[0]!.claims).toEqual({ given_name: "Erika" });
    // Signed by the same key but claiming another issuer: not the trusted issuer.
    const other = await runVerificationEngine(t.server.deps, session, {
      badge: [await issue(`${base}/tenants/other`)],
    });
    expect(other.outcome).toBe("rejected");
    // Metadata that names another issuer is ignored.
    const impostor = `${base}/tenants/impostor`;
    routes.set("/.well-known/jwt-vc-issuer/tenants/impostor", {
      type: "application/json",
      body: JSON.stringify({ issuer: iss, jwks: { keys: [issuerKeys.publicJwk] } }),
    });
    const mismatched = await runVerificationEngine(
      t.server.deps,
      {
        ...session,
        rules: {
          ...session.rules,
          credentials: [
            { ...session.rules.credentials[0], trustedIssuers: [{ credentialIssuer: impostor }] },
          ],
        },
      },
      { badge: [await issue(impostor)] },
    );
    expect(mismatched.outcome).toBe("rejected");
  });

  it("refuses JWKS URLs on private addresses that are not allow-listed", async () => {
    const { outboundGet } = await import("@cred/core/testing");
    await expect(
      outboundGet({ developmentMode: false, webhookAllowedHosts: [] }, "http://127.0.0.1:1/jwks", {
        accept: "application/json",
        maxBytes: 1000,
      }),
    ).rejects.toThrow(/not allowed/);
    await expect(
      outboundGet({ developmentMode: false, webhookAllowedHosts: [] }, "https://10.0.0.1/jwks", {
        accept: "application/json",
        maxBytes: 1000,
      }),
    ).rejects.toThrow(/not allowed/);
    routes.set("/big", { type: "application/json", body: "x".repeat(5000) });
    await expect(
      outboundGet(t.server.deps.config, `${base}/big`, { accept: "application/json", maxBytes: 1000 }),
    ).rejects.toThrow(/too large/);
  });

  it("decodes a gzipped response and bounds the decoded size (a small gzip bomb is too large)", async () => {
    const { outboundGet } = await import("@cred/core/testing");
    let acceptEncoding: string | undefined;
    const bodies: Record<string, Buffer> = {
      "/small": gzipSync(JSON.stringify({ keys: [] })),
      "/bomb": gzipSync(Buffer.alloc(200_000, 0x20)),
      "/garbage": Buffer.from("not gzip at all"),
      // Decodes to nothing, but 20 kB arrive: the bytes as sent are bounded too.
      "/empties": Buffer.concat(Array.from({ length: 1000 }, () => gzipSync(Buffer.alloc(0)))),
    };
    const gz = http.createServer((req, res) => {
      acceptEncoding = req.headers["accept-encoding"];
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      // Chunked (no Content-Length), so only the bytes as they arrive can be counted.
      res.write(bodies[req.url ?? ""]);
      res.end();
    });
    await new Promise<void>((resolve) => gz.listen(0, "127.0.0.1", resolve));
    const at = (path: string) => `http://127.0.0.1:${(gz.address() as AddressInfo).port}${path}`;
    const options = { accept: "application/json", maxBytes: 10_000 };
    try {
      expect(JSON.parse(await outboundGet(t.server.deps.config, at("/small"), options))).toEqual({
        keys: [],
      });
      expect(acceptEncoding).toBe("gzip");
      expect(bodies["/bomb"]!.length).toBeLessThan(options.maxBytes);
      await expect(outboundGet(t.server.deps.config, at("/bomb"), options)).rejects.toThrow(/too large/);
      await expect(outboundGet(t.server.deps.config, at("/garbage"), options)).rejects.toThrow(/decompress/);
      await expect(outboundGet(t.server.deps.config, at("/empties"), options)).rejects.toThrow(/too large/);
    } finally {
      gz.closeAllConnections();
      await new Promise<void>((resolve) => gz.close(() => resolve()));
    }
  });

  it("gives up on a body that trickles past the deadline, though every byte comes within the socket timeout", async () => {
    const { outboundGet } = await import("@cred/core/testing");
    const slow = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => res.write(" "), 100);
      res.on("close", () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    try {
      const started = Date.now();
      await expect(
        outboundGet(t.server.deps.config, `http://127.0.0.1:${(slow.address() as AddressInfo).port}/jwks`, {
          accept: "application/json",
          maxBytes: 1_000_000,
          timeoutMs: 500,
        }),
      ).rejects.toThrow(/timed out/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});
