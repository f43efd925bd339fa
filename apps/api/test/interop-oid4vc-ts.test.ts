// Interoperability: an independent wallet library (oid4vc-ts, @openid4vc/openid4vci, by the Credo
// maintainers) drives our issuer unchanged — offer by reference, metadata, token, nonce, credential.
import { createHash, randomBytes } from "node:crypto";
import { generateEs256KeyPair, importEs256PublicKey, verifySdJwtVc } from "@cred/oid4vc";
import {
  clientAuthenticationAnonymous,
  clientAuthenticationClientAttestationJwt,
  clientAuthenticationNone,
  setGlobalConfig,
} from "@openid4vc/oauth2";
import { Openid4vciClient, Openid4vciWalletProvider } from "@openid4vc/openid4vci";
import { CompactSign } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction, VALID_CLAIMS } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { fetchJson, wellKnown } from "./wallet-client";
import { WALLET_CLIENT_ID, walletProvider } from "./wallet-provider";

let t: TestServer;
let issuer: ActiveIssuer;

beforeAll(async () => {
  // Test servers listen on http://127.0.0.1; production issuers are https.
  setGlobalConfig({ allowInsecureUrls: true });
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
});
afterAll(() => t?.close());

type Holder = Awaited<ReturnType<typeof generateEs256KeyPair>>;

/**
 * The library's wallet client, signing everything (key proofs, DPoP proofs, attestation PoPs) with the
 * holder's key; anonymous, a public client by its `clientId`, or authenticated by a wallet attestation.
 */
function walletClient(
  holder: Holder,
  client?: { clientId: string } | { attestation: string },
  fetchImpl: typeof fetch = fetch,
) {
  const callbacks = {
    fetch: fetchImpl,
    generateRandom: (n: number) => randomBytes(n),
    hash: (data: Uint8Array, alg: string) => createHash(alg.replace("-", "")).update(data).digest(),
    signJwt: async (_signer: unknown, { header, payload }: { header: object; payload: object }) => {
      const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader(header as never)
        .sign(holder.privateKey);
      return { jwt, signerJwk: holder.publicJwk as never };
    },
  };
  const clientAuthentication = !client
    ? clientAuthenticationAnonymous()
    : "clientId" in client
      ? clientAuthenticationNone({ clientId: client.clientId })
      : clientAuthenticationClientAttestationJwt({
          clientAttestationJwt: client.attestation,
          callbacks: callbacks as never,
        });
  return new Openid4vciClient({ callbacks: { ...callbacks, clientAuthentication } as never });
}

type Client = ReturnType<typeof walletClient>;
type Dpop = { signer: { method: "jwk"; alg: string; publicJwk: never } };

/**
 * The library's authorization code flow of an offer: PAR (with PKCE, and DPoP when given), the
 * person's browser following the authorization URL to our redirect, the `iss` check, the code exchange.
 */
async function codeFlowToken(
  client: Client,
  createdOffer: string,
  options: { clientId: string; scope: string; dpop?: Dpop },
) {
  const offer = await client.resolveCredentialOffer(createdOffer);
  const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer);
  const redirectUri = "https://wallet.example/cb";
  const started = await client.createAuthorizationRequestUrlFromOffer({
    credentialOffer: offer,
    issuerMetadata,
    clientId: options.clientId,
    redirectUri,
    scope: options.scope,
    ...(options.dpop ? { dpop: options.dpop } : {}),
  });
  const authorized = await fetch(started.authorizationRequestUrl, { redirect: "manual" });
  expect(authorized.status).toBe(302);
  const response = client.parseAndVerifyAuthorizationResponseRedirectUrl({
    url: authorized.headers.get("location") as string,
    authorizationServerMetadata: issuerMetadata.authorizationServers[0] as never,
  });
  expect(response.code).toEqual(expect.any(String));
  const { accessTokenResponse } = await client.retrieveAuthorizationCodeAccessTokenFromOffer({
    credentialOffer: offer,
    issuerMetadata,
    authorizationCode: response.code as string,
    pkceCodeVerifier: started.pkce?.codeVerifier,
    redirectUri,
    ...(options.dpop ? { dpop: options.dpop } : {}),
  });
  return { issuerMetadata, accessTokenResponse };
}

type IssuerMetadata = Awaited<ReturnType<Client["resolveIssuerMetadata"]>>;

/** The library's nonce → key proof (optionally with a key attestation) → credential request. */
async function requestCredential(
  client: Client,
  issuerMetadata: IssuerMetadata,
  accessToken: string,
  options: {
    configuration: string;
    holder: Holder;
    dpop?: Dpop;
    keyAttestation?: (cNonce: string) => Promise<string>;
  },
) {
  const { c_nonce } = await client.requestNonce({ issuerMetadata });
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId: options.configuration,
    signer: { method: "jwk", alg: "ES256", publicJwk: options.holder.publicJwk as never },
    nonce: c_nonce,
    ...(options.keyAttestation ? { keyAttestationJwt: await options.keyAttestation(c_nonce) } : {}),
  });
  const response = await client.retrieveCredentials({
    issuerMetadata,
    accessToken,
    credentialConfigurationId: options.configuration,
    proofs: { jwt: [jwt] },
    ...(options.dpop ? { dpop: options.dpop } : {}),
  });
  return response.credentialResponse;
}

/**
 * The library's code flow of a fresh offer of `target` with DPoP (by the holder's key), through to one
 * credential; `fetchImpl` sees every request the library makes.
 */
async function dpopCodeFlowCredential(target: ActiveIssuer, fetchImpl: typeof fetch = fetch) {
  const holder = await generateEs256KeyPair();
  const client = walletClient(holder, { clientId: "oid4vc-ts-wallet" }, fetchImpl);
  const created = await createTransaction(t, t.adminKey, target, { grant: "authorizationCode" });
  const dpop = { signer: { method: "jwk" as const, alg: "ES256", publicJwk: holder.publicJwk as never } };
  const { issuerMetadata, accessTokenResponse } = await codeFlowToken(client, created.credentialOffer, {
    clientId: "oid4vc-ts-wallet",
    scope: target.configuration,
    dpop,
  });
  expect(accessTokenResponse.token_type).toBe("DPoP");
  const response = await requestCredential(client, issuerMetadata, accessTokenResponse.access_token, {
    configuration: target.configuration,
    holder,
    dpop,
  });
  expect(response.credentials).toHaveLength(1);
  return { client, issuerMetadata, accessTokenResponse, response, created, dpop, holder };
}

describe("oid4vc-ts wallet client", () => {
  it("waits for a deferred issuance: 202 with a transaction_id, then the credential from the deferred endpoint", async () => {
    const holder = await generateEs256KeyPair();
    const client = walletClient(holder);
    const created = await call(t, "POST", "/v1.0/issuance-transactions", {
      key: t.adminKey,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        delivery: { deferred: true },
      },
    });
    expect(created.status).toBe(201);
    const offer = await client.resolveCredentialOffer(created.body.data.credentialOffer);
    const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer);
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata,
    });
    const accessToken = accessTokenResponse.access_token;
    const deferred = await requestCredential(client, issuerMetadata, accessToken, {
      configuration: issuer.configuration,
      holder,
    });
    expect(deferred).toMatchObject({ transaction_id: expect.any(String), interval: 10 });
    const transactionId = deferred.transaction_id as string;
    const waiting = await client.retrieveDeferredCredentials({ issuerMetadata, accessToken, transactionId });
    expect(waiting.deferredCredentialResponse).toMatchObject({ transaction_id: transactionId });
    const supplied = await call(t, "POST", `/v1.0/issuance-transactions/${created.body.data.id}/claims`, {
      key: t.adminKey,
      body: { claims: VALID_CLAIMS },
    });
    expect(supplied.status).toBe(200);
    const issued = await client.retrieveDeferredCredentials({ issuerMetadata, accessToken, transactionId });
    const credentials = issued.deferredCredentialResponse.credentials as { credential: string }[];
    expect(credentials).toHaveLength(1);
    const jwks = await fetchJson(wellKnown("jwt-vc-issuer", issuer.credentialIssuer));
    const key = await importEs256PublicKey(jwks.body.jwks.keys[0]);
    const verified = await verifySdJwtVc(credentials[0]!.credential, {
      resolveIssuerKey: async () => key,
      now: new Date(),
    });
    expect(verified.ok).toBe(true);
  });

  it("receives a credential through the pre-authorized code flow, with a tx_code", async () => {
    const holder = await generateEs256KeyPair();
    const client = walletClient(holder);
    const created = await createTransaction(t, t.adminKey, issuer, {
      txCode: { inputMode: "numeric", length: 6 },
    });
    const { credentialOffer, txCode } = created;

    const offer = await client.resolveCredentialOffer(credentialOffer);
    const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer);
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata,
      txCode,
    });
    const { c_nonce } = await client.requestNonce({ issuerMetadata });
    const { jwt } = await client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: issuer.configuration,
      signer: { method: "jwk", alg: "ES256", publicJwk: holder.publicJwk as never },
      nonce: c_nonce,
    });
    const response = await client.retrieveCredentials({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: issuer.configuration,
      proofs: { jwt: [jwt] },
    });
    const credential = (response.credentialResponse.credentials?.[0] as { credential: string } | undefined)
      ?.credential as string;
    expect(typeof credential).toBe("string");

    const jwks = await fetchJson(wellKnown("jwt-vc-issuer", issuer.credentialIssuer));
    const key = await importEs256PublicKey(jwks.body.jwks.keys[0]);
    const verified = await verifySdJwtVc(credential, { resolveIssuerKey: async () => key, now: new Date() });
    expect(verified.ok).toBe(true);
    if (verified.ok)
      expect(verified.payload).toMatchObject({
        given_name: "Erika",
        cnf: { jwk: { x: holder.publicJwk.x } },
      });

    await client.sendNotification({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      notification: {
        notificationId: response.credentialResponse.notification_id as string,
        event: "credential_accepted",
      },
    });
    const tx = await call(t, "GET", `/v1.0/issuance-transactions/${created.id}`, {
      key: t.adminKey,
    });
    expect(tx.body.data.status).toBe("completed");
  });

  it("binds its access token with DPoP when the metadata offers it, and uses it with proofs", async () => {
    const holder = await generateEs256KeyPair();
    const client = walletClient(holder);
    const created = await createTransaction(t, t.adminKey, issuer);
    const offer = await client.resolveCredentialOffer(created.credentialOffer);
    const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer);
    const dpop = { signer: { method: "jwk" as const, alg: "ES256", publicJwk: holder.publicJwk as never } };
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata,
      dpop,
    });
    expect(accessTokenResponse.token_type).toBe("DPoP");
    const response = await requestCredential(client, issuerMetadata, accessTokenResponse.access_token, {
      configuration: issuer.configuration,
      holder,
      dpop,
    });
    expect(response.credentials).toHaveLength(1);
    await client.sendNotification({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      notification: {
        notificationId: response.notification_id as string,
        event: "credential_accepted",
      },
      dpop,
    });
  });

  it("runs the authorization code flow of an offer: PAR with PKCE and DPoP, redirect, code exchange", async () => {
    const { created } = await dpopCodeFlowCredential(issuer);
    const tx = await call(t, "GET", `/v1.0/issuance-transactions/${created.id}`, { key: t.adminKey });
    expect(tx.body.data.status).toBe("completed");
  });

  it("asks again with the same access token (OpenID4VCI §14.3) and gets a fresh credential", async () => {
    const first = await dpopCodeFlowCredential(issuer);
    const again = await requestCredential(
      first.client,
      first.issuerMetadata,
      first.accessTokenResponse.access_token,
      { configuration: issuer.configuration, holder: first.holder, dpop: first.dpop },
    );
    const credentialOf = (r: typeof again) =>
      (r.credentials?.[0] as { credential: string } | undefined)?.credential;
    expect(credentialOf(again)).toEqual(expect.any(String));
    expect(credentialOf(again)).not.toBe(credentialOf(first.response));
    const rows = await t.server.database.prisma.credential.findMany({
      where: { transactionId: first.created.id },
    });
    expect(rows).toHaveLength(2);
    expect(rows[0]!.statusIndex).not.toBe(rows[1]!.statusIndex);
  });

  it("retries with our DPoP-Nonce at PAR, token, credential and notification where the issuer requires nonces", async () => {
    const strict = await activeIssuer(t, t.adminKey);
    const set = await call(t, "PATCH", `/management/issuers/${strict.issuerId}`, {
      key: t.adminKey,
      body: { requireDpop: true, requireDpopNonce: true },
    });
    expect(set.status).toBe(200);
    // Counts the answers that asked the library for a nonce, so the test shows the retries happened.
    const askedForNonce: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const challenge = response.headers.get("www-authenticate") ?? "";
      const body = response.status === 400 ? await response.clone().text() : "";
      if (challenge.includes("use_dpop_nonce") || body.includes("use_dpop_nonce"))
        askedForNonce.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
      return response;
    };
    const { client, issuerMetadata, accessTokenResponse, response, created, dpop } =
      await dpopCodeFlowCredential(strict, counting);
    await client.sendNotification({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      notification: { notificationId: response.notification_id as string, event: "credential_accepted" },
      dpop,
    });
    // The library keeps no nonce between calls here, so each endpoint asks once and is retried.
    const at = (endpoint: string) => `/issuers/${strict.issuerId}/${endpoint}`;
    expect(askedForNonce).toEqual(["par", "token", "credential", "notification"].map(at));
    const tx = await call(t, "GET", `/v1.0/issuance-transactions/${created.id}`, { key: t.adminKey });
    expect(tx.body.data.status).toBe("completed");
  });

  it("authenticates with a wallet attestation at PAR and token where the issuer requires one", async () => {
    const provider = await walletProvider("Interop Wallet Provider");
    const attesting = await activeIssuer(t, t.adminKey);
    const set = await call(t, "PATCH", `/management/issuers/${attesting.issuerId}`, {
      key: t.adminKey,
      body: { walletAttestation: { trustedRoots: [provider.rootPem], required: true } },
    });
    expect(set.status).toBe(200);
    const holder = await generateEs256KeyPair();
    const client = walletClient(holder, { attestation: await provider.attest(holder) });
    const created = await createTransaction(t, t.adminKey, attesting, { grant: "authorizationCode" });
    const { issuerMetadata, accessTokenResponse } = await codeFlowToken(client, created.credentialOffer, {
      clientId: WALLET_CLIENT_ID,
      scope: attesting.configuration,
    });
    expect(accessTokenResponse.access_token).toEqual(expect.any(String));
    // The same library's anonymous client is refused by this issuer.
    const anonymous = walletClient(holder);
    const other = await createTransaction(t, t.adminKey, attesting);
    const otherOffer = await anonymous.resolveCredentialOffer(other.credentialOffer);
    await expect(
      anonymous.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer: otherOffer,
        issuerMetadata,
      }),
    ).rejects.toThrow();
  });

  it("proves its key with a key attestation made by the library's wallet provider, where the issuer requires one", async () => {
    const provider = await walletProvider("Interop Key Attester");
    const attesting = await activeIssuer(t, t.adminKey);
    const set = await call(t, "PATCH", `/management/issuers/${attesting.issuerId}`, {
      key: t.adminKey,
      body: {
        keyAttestation: {
          trustedRoots: [provider.rootPem],
          required: true,
          keyStorage: ["iso_18045_moderate"],
        },
      },
    });
    expect(set.status).toBe(200);
    const holder = await generateEs256KeyPair();
    const client = walletClient(holder);
    const walletProviderLib = new Openid4vciWalletProvider({
      callbacks: {
        signJwt: async (_signer, { header, payload }) => {
          const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
            .setProtectedHeader(header as never)
            .sign(provider.attester.privateKey);
          return { jwt, signerJwk: holder.publicJwk as never };
        },
      },
    });
    const created = await createTransaction(t, t.adminKey, attesting);
    const offer = await client.resolveCredentialOffer(created.credentialOffer);
    const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer);
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata,
    });
    const { kty, crv, x, y } = holder.publicJwk;
    const response = await requestCredential(client, issuerMetadata, accessTokenResponse.access_token, {
      configuration: attesting.configuration,
      holder,
      keyAttestation: (cNonce) =>
        walletProviderLib.createKeyAttestationJwt({
          attestedKeys: [{ kty, crv, x, y } as never],
          nonce: cNonce,
          expiresAt: new Date(Date.now() + 3_600_000),
          keyStorage: ["iso_18045_moderate"],
          userAuthentication: ["iso_18045_moderate"],
          use: "proof_type.jwt",
          signer: { method: "x5c", alg: "ES256", x5c: provider.attester.x5c } as never,
        }),
    });
    expect(response.credentials).toHaveLength(1);
  });
});
