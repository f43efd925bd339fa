import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Es256KeyPair,
  generateVerifierCertificate,
  importEs256PrivateKey,
  issueSdJwtVc,
  type VerifierCertificate,
} from "@cred/oid4vc";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import {
  buildTrustedListXml,
  createTestSigner,
  signTrustedListXml,
  type TestService,
  type TestSigner,
} from "@cred/oid4vc/trust-lists/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServedLists, serveListRoutes } from "./fixtures/trusted-list-server";
import { verifierFixture } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/**
 * A verification trusts an external issuer only through a signed test LoTL → TSL (docs/api/trust-sources.md):
 * the issuer's CA is a granted service of the national list, which the LoTL points to with its signer.
 * The served XML is cross-checked with Debian's xmlsec1.
 */

const DAY = 86_400_000;
const XMLSEC1 = ["/usr/bin/xmlsec1", "/usr/local/bin/xmlsec1"].find((path) => existsSync(path));
const workDir = mkdtempSync(join(tmpdir(), "trust-sources-verification-"));
const VCT = "https://pid.example.de/pid";
const ISS = "https://pid.example.de";

let t: TestServer;
let holder: Es256KeyPair;
const { setUp, createPolicy, verifyWith, reasonCodes } = verifierFixture();

let lists: ServedLists | undefined;
let listBase: string;
const routes = new Map<string, string>();
let lotlSigner: TestSigner;
let deSigner: TestSigner;
/** The PID provider's CA (granted in the DE list), a withdrawn provider's CA, and one no list names. */
let pidChain: VerifierCertificate;
let withdrawnChain: VerifierCertificate;
let unlistedChain: VerifierCertificate;

const base64Der = (pem: string) => new X509Certificate(pem).raw.toString("base64");

beforeAll(async () => {
  [{ t, holder }, lotlSigner, deSigner, pidChain, withdrawnChain, unlistedChain] = await Promise.all([
    setUp(),
    createTestSigner("CN=Test LoTL signer EU"),
    createTestSigner("CN=Test TSL signer DE"),
    generateVerifierCertificate({ dnsName: "pid.example.de" }),
    generateVerifierCertificate({ dnsName: "pid.example.de" }),
    generateVerifierCertificate({ dnsName: "pid.example.de" }),
  ]);
  lists = await serveListRoutes(routes);
  listBase = lists.base;
}, 120_000);
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await Promise.all([t?.close(), lists?.close()]);
});

function xmlsec1Verifies(xml: string, signer: TestSigner): boolean {
  const file = join(workDir, `list-${Math.random().toString(36).slice(2)}.xml`);
  const ca = join(workDir, `signer-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, xml);
  writeFileSync(ca, signer.certificatePem);
  try {
    execFileSync(XMLSEC1 as string, ["--verify", "--trusted-pem", ca, file], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/** The DE list: the PID CA granted; another CA granted until yesterday, withdrawn since. */
function nationalList(options: { sequenceNumber?: number; nextUpdate?: Date } = {}) {
  const services: TestService[] = [
    {
      type: SERVICE_TYPE.caQc,
      status: SERVICE_STATUS.granted,
      statusStartingTime: new Date(Date.now() - 10 * DAY),
      certificatesBase64: [base64Der(pidChain.caCertificatePem)],
      name: "PID CA",
    },
    {
      type: SERVICE_TYPE.caQc,
      status: SERVICE_STATUS.withdrawn,
      statusStartingTime: new Date(Date.now() - DAY),
      certificatesBase64: [base64Der(withdrawnChain.caCertificatePem)],
      name: "Withdrawn CA",
      history: [
        {
          type: SERVICE_TYPE.caQc,
          status: SERVICE_STATUS.granted,
          statusStartingTime: new Date(Date.now() - 100 * DAY),
          certificatesBase64: [base64Der(withdrawnChain.caCertificatePem)],
          name: "Withdrawn CA",
        },
      ],
    },
  ];
  return signTrustedListXml(
    buildTrustedListXml({
      territory: "DE",
      sequenceNumber: options.sequenceNumber ?? 1,
      ...(options.nextUpdate ? { nextUpdate: options.nextUpdate } : {}),
      providers: [{ name: "Test PID provider", services }],
    }),
    deSigner,
  );
}

function lotl(dePath: string) {
  return signTrustedListXml(
    buildTrustedListXml({
      territory: "EU",
      listType: "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists",
      pointers: [
        {
          location: `${listBase}${dePath}`,
          territory: "DE",
          signerCertificatesBase64: [deSigner.certificateBase64],
        },
      ],
    }),
    lotlSigner,
  );
}

async function createTrustSource(kind: string, path: string, signer: TestSigner) {
  const r = await call(t, "POST", "/management/trust-sources", {
    key: t.adminKey,
    body: { kind, url: `${listBase}${path}`, signerCertificates: [signer.certificatePem] },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string };
}

const policyTrusting = (identifier: string, trustSourceId: string) => ({
  identifier,
  displayName: identifier,
  responseMode: "direct_post",
  credentials: [
    {
      id: "pid",
      credentialTypes: [VCT],
      trustedIssuers: [{ trustSourceId, serviceType: SERVICE_TYPE.caQc }],
      requiredClaims: [["given_name"]],
    },
  ],
});

async function credentialUnder(chain: VerifierCertificate) {
  const now = Math.floor(Date.now() / 1000);
  return issueSdJwtVc({
    privateKey: await importEs256PrivateKey(chain.privateKeyJwk),
    x5c: chain.x5c,
    iss: ISS,
    vct: VCT,
    iat: now,
    exp: now + 3600,
    cnfJwk: holder.publicJwk,
    claims: { given_name: "Erika" },
    disclosable: [["given_name"]],
  });
}

describe("verification policies trusting issuers from a trust source (LoTL → TSL)", () => {
  let lotlSource: { id: string };

  beforeAll(async () => {
    routes.set("/lotl.xml", lotl("/de.xml"));
    routes.set("/de.xml", nationalList());
    lotlSource = await createTrustSource("lotl", "/lotl.xml", lotlSigner);
    await createPolicy(policyTrusting("pid-from-lotl", lotlSource.id));
  });

  it.skipIf(!XMLSEC1)(
    `xmlsec1 (not written here) accepts the served LoTL and DE list${XMLSEC1 ? "" : " [xmlsec1 is not installed: apt-get install xmlsec1]"}`,
    () => {
      expect(xmlsec1Verifies(routes.get("/lotl.xml")!, lotlSigner)).toBe(true);
      expect(xmlsec1Verifies(routes.get("/de.xml")!, deSigner)).toBe(true);
      expect(xmlsec1Verifies(routes.get("/de.xml")!, lotlSigner)).toBe(false);
    },
  );

  it("verified: the issuer's x5c chain ends at a CA the DE list grants; the request carries etsi_tl and aki", async () => {
    const { session, wallet } = await verifyWith("pid-from-lotl", {
      credential: await credentialUnder(pidChain),
    });
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0]).toMatchObject({ issuer: ISS, claims: { given_name: "Erika" } });
    const authorities = (wallet.request.dcql_query as any).credentials[0].trusted_authorities;
    expect(authorities).toContainEqual({ type: "etsi_tl", values: [`${listBase}/lotl.xml`] });
    expect(authorities.find((a: { type: string }) => a.type === "aki").values).toHaveLength(1);
  });

  it("rejected: a CA whose service the list withdrew, and a CA no list names", async () => {
    for (const chain of [withdrawnChain, unlistedChain]) {
      const { session } = await verifyWith("pid-from-lotl", { credential: await credentialUnder(chain) });
      expect(session.status).toBe("rejected");
      expect(reasonCodes(session).length).toBeGreaterThan(0);
    }
  });

  it("a failed refresh keeps trusting the last good copy (stale-while-valid)", async () => {
    routes.set("/lotl.xml", lotl("/de.xml").replace("EUlistofthelists", "EUlistofthelistz"));
    const refresh = await call(t, "POST", `/management/trust-sources/${lotlSource.id}/refresh`, {
      key: t.adminKey,
    });
    expect(refresh.status).toBe(422);
    expect(refresh.body.error.details[0].code).toBe("BadSignature");
    const { session } = await verifyWith("pid-from-lotl", { credential: await credentialUnder(pidChain) });
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    routes.set("/lotl.xml", lotl("/de.xml"));
  });

  it("400 UnknownTrustSource for a policy naming a trust source that does not exist here (or is another tenant's)", async () => {
    const unknown = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: policyTrusting("pid-unknown", "ts_nothing"),
    });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe("ValidationFailed");
    expect(unknown.body.error.details).toContainEqual(
      expect.objectContaining({
        code: "UnknownTrustSource",
        target: "credentials.0.trustedIssuers.0.trustSourceId",
      }),
    );
    const other = await t.otherTenant();
    const foreign = await call(t, "POST", "/management/verification-policies", {
      key: other.key,
      body: policyTrusting("pid-foreign", lotlSource.id),
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0].code).toBe("UnknownTrustSource");
  });
});

describe("an expired or deleted trust source trusts nothing", () => {
  it("rejected once the last good copy passes its NextUpdate (status expired); rejected after a delete", async () => {
    routes.set("/short.xml", nationalList({ nextUpdate: new Date(Date.now() + 2500) }));
    const source = await createTrustSource("tsl", "/short.xml", deSigner);
    await createPolicy(policyTrusting("pid-short", source.id));
    const before = await verifyWith("pid-short", { credential: await credentialUnder(pidChain) });
    expect(before.session.status, JSON.stringify(before.session.result)).toBe("verified");

    await new Promise((resolve) => setTimeout(resolve, 3000));
    const got = await call(t, "GET", `/management/trust-sources/${source.id}`, { key: t.adminKey });
    expect(got.body.data.status).toBe("expired");
    const after = await verifyWith("pid-short", { credential: await credentialUnder(pidChain) });
    expect(after.session.status).toBe("rejected");

    routes.set("/deleted.xml", nationalList());
    const deleted = await createTrustSource("tsl", "/deleted.xml", deSigner);
    await createPolicy(policyTrusting("pid-deleted", deleted.id));
    expect(
      (await call(t, "DELETE", `/management/trust-sources/${deleted.id}`, { key: t.adminKey })).status,
    ).toBe(200);
    const gone = await verifyWith("pid-deleted", { credential: await credentialUnder(pidChain) });
    expect(gone.session.status).toBe("rejected");
  });
});
