// x509_san_dns when the public base URL is an IP address (http://127.0.0.1:<port>, the harness's own):
// a dNSName, and so an x509_san_dns client identifier, names a DNS name only (OpenID4VP §5.9.3; an IP
// belongs in an iPAddress SAN), so the generated certificate names `verifier.invalid`, the prefix is
// reported unusable and refused, whatever an uploaded leaf says; x509_hash works as everywhere.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const PATH = "/management/verifier-certificate";

let t: TestServer;
let issuer: ActiveIssuer;
let host: string;

async function sanPolicy(identifier: string) {
  const r = await call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: {
      identifier,
      displayName: identifier,
      clientIdPrefix: "x509_san_dns",
      credentials: [
        {
          id: "badge",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: issuer.issuerId }],
          requiredClaims: [["given_name"]],
        },
      ],
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

async function expectSanRefused(policy: string) {
  const r = await call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy } });
  expect(r.status, JSON.stringify(r.body)).toBe(409);
  expect(errorCode(r)).toBe("VerifierCertificateMismatch");
  expect(r.body.error.message).toMatch(/IP address, not a DNS name/);
  expect(r.body.error.details).toEqual([
    expect.objectContaining({ code: "PublicHostNotDnsName", target: "clientIdPrefix" }),
  ]);
}

beforeAll(async () => {
  t = await startTestServer();
  host = new URL(t.server.deps.config.publicBaseUrl).hostname;
  expect(host).toBe("127.0.0.1");
  issuer = await activeIssuer(t, t.adminKey);
  await sanPolicy("san-on-ip");
  await policyTrusting(t, t.adminKey, "hash-on-ip", issuer);
});
afterAll(() => t?.close());

describe("public base URL on an IPv4 address", () => {
  it("the generated certificate names verifier.invalid; x509SanDnsUsable is false, with the reason", async () => {
    const r = await call(t, "GET", PATH, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      uploaded: false,
      dnsName: "verifier.invalid",
      dnsNames: ["verifier.invalid"],
      x509SanDnsUsable: false,
      clientIds: { x509SanDns: "x509_san_dns:verifier.invalid" },
    });
    expect(r.body.data.warnings).toEqual([expect.stringMatching(/'127\.0\.0\.1' is an IP address/)]);
  });

  it("x509_san_dns sessions → 409 VerifierCertificateMismatch; x509_hash verifies", async () => {
    await expectSanRefused("san-on-ip");
    const decided = await presentTo(
      t,
      t.adminKey,
      "hash-on-ip",
      await issueCredential(t, t.adminKey, issuer),
    );
    expect(decided.status, JSON.stringify(decided.result)).toBe("verified");
  });

  it("an uploaded leaf naming the IP in a dNSName does not make x509_san_dns usable", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "vcert-ip-"));
    try {
      const key = path.join(dir, "k.pem");
      const cert = path.join(dir, "c.pem");
      // Misissued (and self-signed, which is accepted with a warning): an IP address in a dNSName SAN.
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-subj",
          `/CN=${host}`,
          "-days",
          "1",
          "-addext",
          "basicConstraints=critical,CA:FALSE",
          "-addext",
          `subjectAltName=DNS:${host},DNS:verifier.example.com`,
          "-keyout",
          key,
          "-out",
          cert,
        ],
        { stdio: "ignore" },
      );
      const r = await call(t, "PUT", PATH, {
        key: t.adminKey,
        body: { certificateChainPem: readFileSync(cert, "utf8"), privateKeyPem: readFileSync(key, "utf8") },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({
        uploaded: true,
        dnsNames: [host, "verifier.example.com"],
        dnsName: "verifier.example.com",
        x509SanDnsUsable: false,
        clientIds: { x509SanDns: "x509_san_dns:verifier.example.com" },
      });
      expect(r.body.data.warnings.join(" ")).toMatch(/is an IP address, not a DNS name/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expectSanRefused("san-on-ip");
    const decided = await presentTo(
      t,
      t.adminKey,
      "hash-on-ip",
      await issueCredential(t, t.adminKey, issuer),
    );
    expect(decided.status, JSON.stringify(decided.result)).toBe("verified");
  });
});
