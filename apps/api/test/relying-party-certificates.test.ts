// Relying-party certificates (issue #30 part B), over HTTP against a real server on http://localhost:<port>:
// the access certificate (WRPAC, ETSI TS 119 411-8: key + CSR here, certificate from a test access CA),
// the registration certificate (WRPRC, ETSI TS 119 475 JWT from a test registrar) carried in
// `verifier_info` and limiting what verifications may ask, and an intermediary acting for a relying party.
import { type webcrypto, X509Certificate } from "node:crypto";
import {
  createTestAccessCa,
  createTestRegistrar,
  presentWithTestWallet,
  type TestAccessCa,
  type TestRegistrar,
} from "@cred/oid4vc";
import { setGlobalConfig } from "@openid4vc/oauth2";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, VALID_CLAIMS } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { oid4vpTsWallet, presentWithOid4vpTs, resolveWithOid4vpTs } from "./oid4vp-ts-wallet";
import { redeemOffer } from "./wallet-client";

const CERT = "/management/verifier-certificate";
const CSR = `${CERT}/signing-request`;
const ACCESS = `${CERT}/access-certificate`;
const REGISTRATION = "/management/verifier-registration-certificate";
const OUR_ID = "VATFI-12345678";
const CLIENT_ID = "VATFI-99999999"; // a relying party we act for as intermediary

let t: TestServer;
let issuer: ActiveIssuer;
let credential: string;
let holderKey: webcrypto.CryptoKey;
let accessCa: TestAccessCa;
let registrar: TestRegistrar;
let accessChainPem: string;

const wallet = oid4vpTsWallet();

interface Session {
  id: string;
  authorizationRequestUri: string;
  requestUri: string;
}

async function createPolicy(identifier: string, claims: string[][], prefix = "x509_hash") {
  const r = await call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: {
      identifier,
      displayName: identifier,
      clientIdPrefix: prefix,
      credentials: [
        {
          id: "employee",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: issuer.issuerId }],
          requiredClaims: claims,
        },
      ],
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

const start = (policy: string, key = t.adminKey) =>
  call(t, "POST", "/v1.0/verifications", { key, body: { policy } });

async function started(policy: string): Promise<Session> {
  const r = await start(policy);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

async function sessionStatus(id: string) {
  return (await call(t, "GET", `/v1.0/verification-sessions/${id}`, { key: t.adminKey })).body.data.status;
}

const registered = (claims: string[]) => [
  { format: "dc+sd-jwt", meta: issuer.credentialType, claim: claims.map((path) => ({ path })) },
];

function registrationPayload(overrides: Record<string, unknown> = {}) {
  return {
    name: "Webshop",
    sub: { legal_name: ["Webshop Oy"], id: [{ type: "VAT", identifier: OUR_ID }] },
    country: "FI",
    credentials: registered(["given_name", "family_name"]),
    purpose: [{ lang: "en", value: "Checking who you are" }],
    ...overrides,
  };
}

/** oid4vc-ts resolves and answers the request (x509_san_dns, direct_post.jwt); returns the request it resolved. */
async function oid4vcTsWallet(session: Session) {
  const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
  const submitted = await presentWithOid4vpTs(wallet, resolved, { credential, holderKey });
  expect(submitted.response.status).toBe(200);
  return resolved.request;
}

/** The access-certificate request awaiting its certificate (VerifierCertificates_Get), or null. */
async function pendingRequest(key = t.adminKey) {
  const r = await call(t, "GET", CERT, { key });
  expect(r.status).toBe(200);
  return r.body.data.signingRequest as { csrPem: string; subject: string; createdAt: string } | null;
}

async function requestObjectOf(session: Session) {
  const jwt = await (await fetch(session.requestUri)).text();
  return {
    header: decodeProtectedHeader(jwt) as { x5c: string[] },
    payload: decodeJwt(jwt) as Record<string, any>,
  };
}

beforeAll(async () => {
  setGlobalConfig({ allowInsecureUrls: true });
  t = await startTestServer();
  t.server.deps.config.publicBaseUrl = t.baseUrl.replace("127.0.0.1", "localhost");
  issuer = await activeIssuer(t, t.adminKey);
  const tx = await call(t, "POST", "/v1.0/issuance-transactions", {
    key: t.adminKey,
    body: { credentialConfiguration: issuer.configuration, issuerId: issuer.issuerId, claims: VALID_CLAIMS },
  });
  expect(tx.status).toBe(201);
  const flow = await redeemOffer(tx.body.data.credentialOffer);
  credential = flow.credentialRes.body.credentials[0].credential;
  holderKey = flow.keys[0]!.privateKey;
  accessCa = await createTestAccessCa();
  registrar = await createTestRegistrar();
  await createPolicy("rp-names", [["given_name"], ["family_name"]]);
  await createPolicy("rp-names-san", [["given_name"], ["family_name"]], "x509_san_dns");
  await createPolicy("rp-birthdate", [["given_name"], ["birthdate"]]);
});
afterAll(() => t?.close());

describe("access certificate (WRPAC): CSR, import, request objects signed with it", () => {
  it("VerifierCertificates_CreateSigningRequest: 201 with a CSR naming the organisation; Get shows it", async () => {
    const r = await call(t, "POST", CSR, {
      key: t.adminKey,
      body: {
        organisationName: "Webshop Oy",
        organisationIdentifier: OUR_ID,
        country: "FI",
        certificatePolicies: ["0.4.0.2042.1.2"],
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.subject).toBe(`C=FI, O=Webshop Oy, 2.5.4.97=${OUR_ID}, CN=Webshop Oy`);
    expect(r.body.data.csrPem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
    expect(JSON.stringify(r.body)).not.toMatch(/PRIVATE KEY|"d":/);
    const cert = await call(t, "GET", CERT, { key: t.adminKey });
    expect(cert.body.data).toMatchObject({
      signingRequest: r.body.data,
      uploaded: false,
      organisationIdentifiers: [],
    });
    accessChainPem = await accessCa.issue(r.body.data.csrPem);
  });

  it("400 ValidationFailed for a malformed organisation identifier, country or policy OID", async () => {
    for (const body of [
      { organisationName: "X", organisationIdentifier: "12345678", country: "FI" },
      { organisationName: "X", organisationIdentifier: OUR_ID, country: "Finland" },
      {
        organisationName: "X",
        organisationIdentifier: OUR_ID,
        country: "FI",
        certificatePolicies: ["policy"],
      },
    ]) {
      const r = await call(t, "POST", CSR, { key: t.adminKey, body });
      expect(r.status).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
    }
  });

  it("import refused: chain not under the given root, a certificate for another key → 400 InvalidCertificate", async () => {
    const otherCa = await createTestAccessCa();
    const wrongRoot = await call(t, "PUT", ACCESS, {
      key: t.adminKey,
      body: { certificateChainPem: accessChainPem, trustAnchorPem: otherCa.rootPem },
    });
    expect(wrongRoot.status).toBe(400);
    expect(errorCode(wrongRoot)).toBe("InvalidCertificate");
    expect(wrongRoot.body.error.details[0].message).toContain("does not validate to the trust anchor");

    // A certificate the CA issued for someone else's request: the pending key is not its key.
    const { createAccessCertificateRequest } = await import("@cred/oid4vc");
    const foreign = await createAccessCertificateRequest({
      organisationName: "Other",
      organisationIdentifier: OUR_ID,
      country: "FI",
      dnsNames: ["localhost"],
    });
    const otherKey = await call(t, "PUT", ACCESS, {
      key: t.adminKey,
      body: { certificateChainPem: await accessCa.issue(foreign.csrPem), trustAnchorPem: accessCa.rootPem },
    });
    expect(otherKey.status).toBe(400);
    expect(JSON.stringify(otherKey.body.error.details)).toContain("private key does not match");

    const expired = await call(t, "PUT", ACCESS, {
      key: t.adminKey,
      body: {
        certificateChainPem: await accessCa.issue((await pendingRequest())!.csrPem, {
          notBefore: new Date(Date.now() - 10 * 86_400_000),
          validityDays: 1,
        }),
        trustAnchorPem: accessCa.rootPem,
      },
    });
    expect(expired.status).toBe(400);
    expect(errorCode(expired)).toBe("InvalidCertificate");
    expect(await pendingRequest()).not.toBeNull();
  });

  it("VerifierCertificates_ImportAccessCertificate: 200; request objects carry the access chain in x5c", async () => {
    const r = await call(t, "PUT", ACCESS, {
      key: t.adminKey,
      body: { certificateChainPem: accessChainPem, trustAnchorPem: accessCa.rootPem },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      uploaded: true,
      signingRequest: null,
      organisationIdentifiers: [OUR_ID],
      issuer: "CN=Test WRPAC provider, C=FI",
      dnsNames: ["localhost"],
      warnings: [],
    });
    const again = await call(t, "PUT", ACCESS, {
      key: t.adminKey,
      body: { certificateChainPem: accessChainPem, trustAnchorPem: accessCa.rootPem },
    });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("InvalidState");

    const expectedX5c = accessChainPem
      .split(/(?<=-----END CERTIFICATE-----)/)
      .filter((p) => p.includes("BEGIN"))
      .map((pem) => new X509Certificate(pem).raw.toString("base64"));
    const session = await started("rp-names");
    const { header } = await requestObjectOf(session);
    expect(header.x5c).toEqual(expectedX5c);
    // A wallet that trusts the access CA's root (as it would through its trusted list) completes the flow.
    const answered = await presentWithTestWallet({
      authorizationRequestUri: session.authorizationRequestUri,
      fetch: (input, init) => fetch(input, init),
      holderPrivateKey: holderKey,
      credential,
      trustedRootsPem: [accessCa.rootPem],
    });
    expect(answered.status).toBe(200);
    expect(await sessionStatus(session.id)).toBe("verified");
  });
});

describe("registration certificate (WRPRC): verifier_info and limits", () => {
  it("refused uploads: wrong registrar root, wrong typ, expired, another relying party → 400", async () => {
    const other = await createTestRegistrar();
    const cases: [string, string, string][] = [
      [await registrar.sign(registrationPayload()), other.rootPem, "does not validate to the trust anchor"],
      [await registrar.sign(registrationPayload(), { typ: "JWT" }), registrar.rootPem, "rc-wrp+jwt"],
      [
        await registrar.sign(registrationPayload({ exp: Math.floor(Date.now() / 1000) - 60 })),
        registrar.rootPem,
        "expired",
      ],
      [
        await registrar.sign(registrationPayload({ sub: "VATFI-00000000" })),
        registrar.rootPem,
        "organizationIdentifier",
      ],
    ];
    for (const [jwt, anchor, message] of cases) {
      const r = await call(t, "PUT", REGISTRATION, {
        key: t.adminKey,
        body: { registrationCertificate: jwt, trustAnchorPem: anchor },
      });
      expect(r.status, message).toBe(400);
      expect(errorCode(r)).toBe("InvalidCertificate");
      expect(JSON.stringify(r.body.error.details)).toContain(message);
    }
    const notJwt = await call(t, "PUT", REGISTRATION, {
      key: t.adminKey,
      body: { registrationCertificate: "not a jwt", trustAnchorPem: registrar.rootPem },
    });
    expect(notJwt.status).toBe(400);
    expect(errorCode(notJwt)).toBe("ValidationFailed");
    expect((await call(t, "GET", REGISTRATION, { key: t.adminKey })).status).toBe(404);
  });

  it("without a registration certificate, nothing is limited", async () => {
    const r = await start("rp-birthdate");
    expect(r.status).toBe(201);
  });

  it("VerifierRegistrationCertificates_Upload: 200; the request object carries it in verifier_info", async () => {
    const jwt = await registrar.sign(registrationPayload());
    const r = await call(t, "PUT", REGISTRATION, {
      key: t.adminKey,
      body: { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      registrationCertificate: jwt,
      name: "Webshop",
      subjectIds: [OUR_ID],
      intermediary: null,
      credentials: [
        { format: "dc+sd-jwt", types: [issuer.credentialType], claims: [["given_name"], ["family_name"]] },
      ],
      registrar: "CN=Test registrar signer, C=FI",
    });
    expect((await call(t, "GET", REGISTRATION, { key: t.adminKey })).body.data).toEqual(r.body.data);

    const session = await started("rp-names-san");
    const { payload } = await requestObjectOf(session);
    expect(payload.verifier_info).toEqual([{ format: "registration_cert", data: jwt }]);
    // oid4vc-ts (an OpenID4VP wallet no one here wrote) resolves the request and completes the flow.
    const request = await oid4vcTsWallet(session);
    expect(request.verifier_info).toEqual([{ format: "registration_cert", data: jwt }]);
    expect(await sessionStatus(session.id)).toBe("verified");
  });

  it("Digital Credentials API requests carry it too (signed: under the access certificate's x5c)", async () => {
    const registration = (await call(t, "GET", REGISTRATION, { key: t.adminKey })).body.data
      .registrationCertificate;
    for (const signed of [true, false]) {
      const r = await call(t, "POST", "/v1.0/verifications", {
        key: t.adminKey,
        body: { policy: "rp-names", dcApi: { origins: ["https://shop.example"], signed } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const data = r.body.data.dcApiRequest.data as Record<string, any>;
      const request = signed ? (decodeJwt(data.request) as Record<string, any>) : data;
      expect(request.verifier_info).toEqual([{ format: "registration_cert", data: registration }]);
      if (signed) expect((decodeProtectedHeader(data.request) as { x5c: string[] }).x5c).toHaveLength(2);
    }
    const refused = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "rp-birthdate", dcApi: { origins: ["https://shop.example"] } },
    });
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("NotRegistered");
  });

  it("a verification asking for an unregistered claim → 409 NotRegistered, naming the claim", async () => {
    const r = await start("rp-birthdate");
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("NotRegistered");
    expect(r.body.error.details).toEqual([
      expect.objectContaining({
        code: "UnregisteredClaim",
        target: 'policy.credentials[employee].claims[["birthdate"]]',
      }),
    ]);
  });

  it("a verification asking for an unregistered credential type → 409 NotRegistered", async () => {
    const jwt = await registrar.sign(
      registrationPayload({
        credentials: [{ format: "dc+sd-jwt", meta: "urn:other:type", claim: [{ path: "given_name" }] }],
      }),
    );
    const up = await call(t, "PUT", REGISTRATION, {
      key: t.adminKey,
      body: { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem },
    });
    expect(up.status).toBe(200);
    const r = await start("rp-names");
    expect(r.status).toBe(409);
    expect(r.body.error.details[0]).toMatchObject({ code: "UnregisteredCredential" });
  });

  it("intermediary: the RP's registration names us in act.sub; requests carry it, the flow completes", async () => {
    const jwt = await registrar.sign(
      registrationPayload({
        name: "Client shop",
        sub: { legal_name: ["Client Shop Oy"], id: [{ type: "VAT", identifier: CLIENT_ID }] },
        act: { sub: { id: OUR_ID, name: "Webshop Oy" } },
        credentials: registered(["given_name", "family_name", "birthdate"]),
      }),
    );
    const r = await call(t, "PUT", REGISTRATION, {
      key: t.adminKey,
      body: { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      subjectIds: [CLIENT_ID],
      intermediary: { ids: [OUR_ID], name: "Webshop Oy" },
    });
    const session = await started("rp-birthdate");
    const { payload } = await requestObjectOf(session);
    expect(payload.verifier_info).toEqual([{ format: "registration_cert", data: jwt }]);
    const named = await started("rp-names-san");
    await oid4vcTsWallet(named);
    expect(await sessionStatus(named.id)).toBe("verified");
  });

  it("VerifierRegistrationCertificates_Delete: 200, then 404; verifications are no longer limited", async () => {
    const del = await call(t, "DELETE", REGISTRATION, { key: t.adminKey });
    expect(del.status).toBe(200);
    expect(del.body.data.subjectIds).toEqual([CLIENT_ID]);
    expect((await call(t, "GET", REGISTRATION, { key: t.adminKey })).status).toBe(404);
    expect((await call(t, "DELETE", REGISTRATION, { key: t.adminKey })).status).toBe(404);
    const session = await started("rp-names");
    expect((await requestObjectOf(session)).payload.verifier_info).toBeUndefined();
  });
});

describe("security and isolation", () => {
  it("401 without a key; 403 without the scope", async () => {
    for (const [method, path] of [
      ["GET", REGISTRATION],
      ["PUT", REGISTRATION],
      ["DELETE", REGISTRATION],
      ["POST", CSR],
      ["PUT", ACCESS],
    ] as const) {
      const anon = await call(t, method, path, {
        key: null,
        body: method === "GET" || method === "DELETE" ? undefined : {},
      });
      expect(anon.status, `${method} ${path}`).toBe(401);
    }
    const reader = await t.key({ scopes: ["verification-policies.read"] });
    expect((await call(t, "GET", REGISTRATION, { key: reader })).status).toBe(404);
    const upload = await call(t, "PUT", REGISTRATION, {
      key: reader,
      body: { registrationCertificate: "a.b.c", trustAnchorPem: registrar.rootPem },
    });
    expect(upload.status).toBe(403);
    expect(errorCode(upload)).toBe("MissingScope");
    expect((await call(t, "DELETE", REGISTRATION, { key: reader })).status).toBe(403);
    const csr = await call(t, "POST", CSR, {
      key: reader,
      body: { organisationName: "X", organisationIdentifier: OUR_ID, country: "FI" },
    });
    expect(csr.status).toBe(403);
    const imp = await call(t, "PUT", ACCESS, {
      key: reader,
      body: { certificateChainPem: accessChainPem, trustAnchorPem: accessCa.rootPem },
    });
    expect(imp.status).toBe(403);
    const stranger = await t.key({ scopes: ["verification.read", "verification.execute"] });
    expect((await call(t, "GET", REGISTRATION, { key: stranger })).status).toBe(403);
  });

  it("another tenant or environment sees none of ours (404) and must import its own access certificate", async () => {
    const jwt = await registrar.sign(
      registrationPayload({ credentials: registered(["given_name", "family_name"]) }),
    );
    const up = await call(t, "PUT", REGISTRATION, {
      key: t.adminKey,
      body: { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem },
    });
    expect(up.status).toBe(200);
    const pending = await call(t, "POST", CSR, {
      key: t.adminKey,
      body: { organisationName: "Webshop Oy", organisationIdentifier: OUR_ID, country: "FI" },
    });
    expect(pending.status).toBe(201);

    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    for (const key of [other.key, production]) {
      expect((await call(t, "GET", REGISTRATION, { key })).status).toBe(404);
      expect((await call(t, "DELETE", REGISTRATION, { key })).status).toBe(404);
      expect(await pendingRequest(key)).toBeNull();
      // No pending request of theirs: our CA-issued chain cannot be imported there.
      const imp = await call(t, "PUT", ACCESS, {
        key,
        body: { certificateChainPem: accessChainPem, trustAnchorPem: accessCa.rootPem },
      });
      expect(imp.status).toBe(409);
      expect(errorCode(imp)).toBe("InvalidState");
      // Their verifier certificate is the generated one (no organizationIdentifier): 409 until they import theirs.
      const reg = await call(t, "PUT", REGISTRATION, {
        key,
        body: { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem },
      });
      expect(reg.status).toBe(409);
      expect(errorCode(reg)).toBe("InvalidState");
    }
    expect((await call(t, "GET", REGISTRATION, { key: t.adminKey })).status).toBe(200);
    expect(await pendingRequest()).toEqual(pending.body.data);
  });

  it("replacing the access certificate by one for another organisation: verifications → 409 VerifierCertificateMismatch", async () => {
    const csr = (await pendingRequest())!.csrPem as string;
    expect(csr).toBeTruthy();
    const other = await call(t, "POST", CSR, {
      key: t.adminKey,
      body: { organisationName: "Someone Else Oy", organisationIdentifier: "VATFI-55555555", country: "FI" },
    });
    const imp = await call(t, "PUT", ACCESS, {
      key: t.adminKey,
      body: {
        certificateChainPem: await accessCa.issue(other.body.data.csrPem),
        trustAnchorPem: accessCa.rootPem,
      },
    });
    expect(imp.status).toBe(200);
    const r = await start("rp-names");
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("VerifierCertificateMismatch");
    expect(r.body.error.details[0].code).toBe("RegistrationSubjectMismatch");
  });
});

describe("VerifierCertificates_CreateSigningRequest with an Idempotency-Key", () => {
  const body = { organisationName: "Webshop Oy", organisationIdentifier: OUR_ID, country: "FI" };

  it("a repeat is answered the first request (same CSR, Idempotent-Replayed) and replaces it by no other; another body → 409", async () => {
    // A tenant's first use: its verifier certificate is generated inside the key's unit of work.
    const { key } = await t.otherTenant();
    const headers = { "idempotency-key": "csr-once" };
    const first = await call(t, "POST", CSR, { key, body, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await call(t, "POST", CSR, { key, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await pendingRequest(key)).toEqual(first.body.data);

    const reused = await call(t, "POST", CSR, {
      key,
      body: { ...body, organisationName: "Someone Else Oy" },
      headers,
    });
    expect(reused.status).toBe(409);
    expect(errorCode(reused)).toBe("IdempotencyKeyReused");
    expect(await pendingRequest(key)).toEqual(first.body.data);

    // The CSR answered twice is the pending key's: the CA's certificate for it imports.
    const imported = await call(t, "PUT", ACCESS, {
      key,
      body: {
        certificateChainPem: await accessCa.issue(again.body.data.csrPem),
        trustAnchorPem: accessCa.rootPem,
      },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.data.organisationIdentifiers).toEqual([OUR_ID]);
  });

  it("without the header each call makes a new key and CSR, replacing the pending one", async () => {
    const { key } = await t.otherTenant();
    const first = await call(t, "POST", CSR, { key, body });
    const second = await call(t, "POST", CSR, { key, body });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.data.csrPem).not.toBe(first.body.data.csrPem);
    expect(await pendingRequest(key)).toEqual(second.body.data);
  });
});
