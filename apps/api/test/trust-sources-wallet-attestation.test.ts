// Wallet attestation (OpenID4VCI Appendix E) trusted through a trust source: the wallet provider's CA is
// a granted wallet-provider service of a TS 119 602 list of trusted entities (JWS) the test serves.
import { generateEs256KeyPair } from "@cred/oid4vc";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import { buildLote, createTestSigner, signLoteJws, type TestSigner } from "@cred/oid4vc/trust-lists/testing";
import { x509 } from "@cred/oid4vc/x509";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { serveList } from "./fixtures/trusted-list-server";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, resolveOffer, wellKnown } from "./wallet-client";
import { attestationPop, walletProvider } from "./wallet-provider";

const DAY = 86_400_000;
const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;

let t: TestServer;
let issuer: ActiveIssuer;
let as: Record<string, any>;
let provider: Awaited<ReturnType<typeof walletProvider>>;
let withdrawn: Awaited<ReturnType<typeof walletProvider>>;
let stranger: Awaited<ReturnType<typeof walletProvider>>;
let loteSigner: TestSigner;
let lists: Awaited<ReturnType<typeof serveList>>;
let loteUrl: string;
let lote: string;

function walletProvidersLote() {
  const service = (rootPem: string, status: string) => ({
    type: SERVICE_TYPE.walletSolutionIssuance,
    name: "Wallet unit attestations",
    certificatesBase64: [new x509.X509Certificate(rootPem).toString("base64")],
    status,
    statusStartingTime: new Date(Date.now() - DAY),
  });
  return buildLote({
    entities: [
      {
        name: "Test wallet providers",
        services: [
          service(provider.rootPem, SERVICE_STATUS.granted),
          service(withdrawn.rootPem, SERVICE_STATUS.withdrawn),
        ],
      },
    ],
  });
}

beforeAll(async () => {
  [t, provider, withdrawn, stranger, loteSigner] = await Promise.all([
    startTestServer(),
    walletProvider("LoTE-listed Wallet Provider"),
    walletProvider("Withdrawn Wallet Provider"),
    walletProvider("Unlisted Wallet Provider"),
    createTestSigner("CN=Test LoTE signer", { kind: "ec" }),
  ]);
  issuer = await activeIssuer(t, t.adminKey);
  as = (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer))).body;
  lote = await signLoteJws(walletProvidersLote(), loteSigner);
  lists = await serveList(lote, { path: "/wallet-providers.jws", contentType: "application/jose" });
  loteUrl = lists.url;
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.close(), lists?.close()]);
});

const setAttestation = (walletAttestation: unknown, key = t.adminKey) =>
  call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, { key, body: { walletAttestation } });

async function tokenRequest(headers: Record<string, string>) {
  const created = await createTransaction(t, t.adminKey, issuer);
  const offer = await resolveOffer(created.credentialOffer);
  return fetchJson(as.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    }).toString(),
  });
}

async function attestedBy(by: typeof provider, instance: Key) {
  return {
    "oauth-client-attestation": await by.attest(instance),
    "oauth-client-attestation-pop": await attestationPop(instance, issuer.credentialIssuer),
  };
}

describe("an issuer trusting wallet providers from a LoTE trust source", () => {
  let trustSourceId: string;

  beforeAll(async () => {
    const created = await call(t, "POST", "/management/trust-sources", {
      key: t.adminKey,
      body: { kind: "lote", url: loteUrl, signerCertificates: [loteSigner.certificatePem] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    trustSourceId = created.body.data.id;
  });

  it("400 UnknownTrustSource for a trust source not of this tenant and environment", async () => {
    const r = await setAttestation({ trustSources: [{ trustSourceId: "ts_nothing" }], required: true });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("UnknownTrustSource");
    expect(r.body.error.details[0].target).toBe("walletAttestation.trustSources.0.trustSourceId");
    const other = await t.otherTenant();
    const otherIssuer = await activeIssuer(t, other.key);
    const foreign = await call(t, "PATCH", `/management/issuers/${otherIssuer.issuerId}`, {
      key: other.key,
      body: { walletAttestation: { trustSources: [{ trustSourceId }] } },
    });
    expect(foreign.status).toBe(400);
    expect(errorCode(foreign)).toBe("UnknownTrustSource");
  });

  it("accepts an attestation from the listed provider, refuses a withdrawn and an unlisted one, and nothing after the source is deleted", async () => {
    const set = await setAttestation({ trustSources: [{ trustSourceId }], required: true });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.walletAttestation).toMatchObject({
      trustedRoots: [],
      trustSources: [{ trustSourceId, serviceType: SERVICE_TYPE.walletSolutionIssuance }],
      required: true,
    });
    const instance = await generateEs256KeyPair();
    const ok = await tokenRequest(await attestedBy(provider, instance));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    for (const refused of [withdrawn, stranger]) {
      const r = await tokenRequest(await attestedBy(refused, await generateEs256KeyPair()));
      expect(r.status, JSON.stringify(r.body)).toBe(401);
      expect(r.body.error).toBe("invalid_client");
    }
    expect(
      (await call(t, "DELETE", `/management/trust-sources/${trustSourceId}`, { key: t.adminKey })).status,
    ).toBe(200);
    const gone = await tokenRequest(await attestedBy(provider, await generateEs256KeyPair()));
    expect(gone.status).toBe(401);
    await setAttestation(null);
  });
});
