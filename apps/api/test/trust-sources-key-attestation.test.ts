// Key attestations (OpenID4VCI Appendix D) trusted through a trust source: the key attester's CA is a
// granted service of a TS 119 602 list of trusted entities (JWS) the test serves.
import { generateEs256KeyPair } from "@cred/oid4vc";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import { buildLote, createTestSigner, signLoteJws, type TestSigner } from "@cred/oid4vc/trust-lists/testing";
import { x509 } from "@cred/oid4vc/x509";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { serveList } from "./fixtures/trusted-list-server";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, nonce, resolveOffer, token, wellKnown } from "./wallet-client";
import { walletProvider } from "./wallet-provider";

const DAY = 86_400_000;
const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

let t: TestServer;
let issuer: ActiveIssuer;
let metadata: Record<string, any>;
let attester: Awaited<ReturnType<typeof walletProvider>>;
let stranger: Awaited<ReturnType<typeof walletProvider>>;
let loteSigner: TestSigner;
let lists: Awaited<ReturnType<typeof serveList>>;
let loteUrl: string;
let lote: string;

beforeAll(async () => {
  [t, attester, stranger, loteSigner] = await Promise.all([
    startTestServer(),
    walletProvider("LoTE-listed Key Attester"),
    walletProvider("Unlisted Key Attester"),
    createTestSigner("CN=Test LoTE signer", { kind: "ec" }),
  ]);
  issuer = await activeIssuer(t, t.adminKey);
  metadata = (await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer))).body;
  lote = await signLoteJws(
    buildLote({
      entities: [
        {
          name: "Test key attester",
          services: [
            {
              type: SERVICE_TYPE.walletSolutionIssuance,
              name: "Key attestations",
              certificatesBase64: [new x509.X509Certificate(attester.rootPem).toString("base64")],
              status: SERVICE_STATUS.granted,
              statusStartingTime: new Date(Date.now() - DAY),
            },
          ],
        },
      ],
    }),
    loteSigner,
  );
  lists = await serveList(lote, { path: "/key-attesters.jws", contentType: "application/jose" });
  loteUrl = lists.url;
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.close(), lists?.close()]);
});

const setKeyAttestation = (keyAttestation: unknown) =>
  call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, { key: t.adminKey, body: { keyAttestation } });

async function tokenAndNonce() {
  const created = await createTransaction(t, t.adminKey, issuer);
  const offer = await resolveOffer(created.credentialOffer);
  const issued = await token(`${issuer.credentialIssuer}/token`, {
    grant_type: PRE_AUTH,
    "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
  });
  return { accessToken: issued.body.access_token as string, cNonce: await nonce(metadata.nonce_endpoint) };
}

function credentialRequest(accessToken: string, proofs: Record<string, string[]>) {
  return fetchJson(metadata.credential_endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ credential_configuration_id: issuer.configuration, proofs }),
  });
}

describe("an issuer trusting key attesters from a LoTE trust source", () => {
  it("400 UnknownTrustSource for an unknown source; accepts the listed attester, refuses an unlisted one and all after a delete", async () => {
    const unknown = await setKeyAttestation({
      trustSources: [{ trustSourceId: "ts_nothing" }],
      required: true,
    });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe("UnknownTrustSource");
    expect(unknown.body.error.details[0].target).toBe("keyAttestation.trustSources.0.trustSourceId");

    const created = await call(t, "POST", "/management/trust-sources", {
      key: t.adminKey,
      body: { kind: "lote", url: loteUrl, signerCertificates: [loteSigner.certificatePem] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const trustSourceId = created.body.data.id;
    const set = await setKeyAttestation({ trustSources: [{ trustSourceId }], required: true });
    expect(set.status, JSON.stringify(set.body)).toBe(200);

    const keys = [await generateEs256KeyPair(), await generateEs256KeyPair()];
    const ok = await tokenAndNonce();
    const accepted = await credentialRequest(ok.accessToken, {
      attestation: [await attester.attestKeys(keys, { nonce: ok.cNonce })],
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.credentials).toHaveLength(2);

    const refusedNow = await tokenAndNonce();
    const refused = await credentialRequest(refusedNow.accessToken, {
      attestation: [await stranger.attestKeys(keys, { nonce: refusedNow.cNonce })],
    });
    expect([refused.status, refused.body.error]).toEqual([400, "invalid_proof"]);

    expect(
      (await call(t, "DELETE", `/management/trust-sources/${trustSourceId}`, { key: t.adminKey })).status,
    ).toBe(200);
    const after = await tokenAndNonce();
    const gone = await credentialRequest(after.accessToken, {
      attestation: [await attester.attestKeys(keys, { nonce: after.cNonce })],
    });
    expect([gone.status, gone.body.error]).toEqual([400, "invalid_proof"]);
    await setKeyAttestation(null);
  });
});
