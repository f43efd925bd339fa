// The peer: an OpenID4VCI pre-authorized-code issuer assembled from independent open-source libraries
// (oid4vc-ts — @openid4vc/oauth2 + @openid4vc/openid4vci, by the Credo maintainers — and @sd-jwt/sd-jwt-vc),
// with in-memory state and node:http. It is a benchmark harness for those libraries, not a product: no
// persistence, no tenants, no API keys. Run as a child process by bench/run.ts.
import { createHash, randomBytes, randomUUID, webcrypto } from "node:crypto";
import http from "node:http";
import {
  type CallbackContext,
  clientAuthenticationAnonymous,
  type Jwk,
  Oauth2AuthorizationServer,
  Oauth2ResourceServer,
  Oauth2ServerErrorResponseError,
  preAuthorizedCodeGrantIdentifier,
  setGlobalConfig,
} from "@openid4vc/oauth2";
import { Openid4vciIssuer, Openid4vciVersion } from "@openid4vc/openid4vci";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { CompactSign, compactVerify, exportJWK, generateKeyPair, importJWK } from "jose";

setGlobalConfig({ allowInsecureUrls: true });
const port = Number(process.env.PORT);
const base = `http://127.0.0.1:${port}`;
const CONFIG_ID = "employee";

const { privateKey, publicKey } = await generateKeyPair("ES256");
const publicJwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" } as Jwk;
const jwks = { keys: [publicJwk] };

const callbacks: Omit<CallbackContext, "encryptJwe" | "decryptJwe"> = {
  hash: (data, alg) => createHash(alg.replace("-", "").toLowerCase()).update(data).digest(),
  generateRandom: (n) => randomBytes(n),
  clientAuthentication: clientAuthenticationAnonymous(),
  // The access token's jwks_uri is this process; answer it without a network round trip.
  fetch: async () => new Response(JSON.stringify(jwks), { headers: { "content-type": "application/json" } }),
  signJwt: async (_signer, { header, payload }) => ({
    jwt: await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader(header as never)
      .sign(privateKey),
    signerJwk: publicJwk,
  }),
  verifyJwt: async (signer, { compact }) => {
    const jwk = signer.method === "jwk" ? signer.publicJwk : undefined;
    if (!jwk) return { verified: false };
    try {
      await compactVerify(compact, await importJWK(jwk as never, signer.alg));
      return { verified: true, signerJwk: jwk };
    } catch {
      return { verified: false };
    }
  },
};

const authorizationServer = new Oauth2AuthorizationServer({ callbacks });
const resourceServer = new Oauth2ResourceServer({ callbacks });
const issuer = new Openid4vciIssuer({ callbacks });
const asMetadata = authorizationServer.createAuthorizationServerMetadata({
  issuer: base,
  token_endpoint: `${base}/token`,
  jwks_uri: `${base}/jwks`,
  "pre-authorized_grant_anonymous_access_supported": true,
});
const credentialIssuerMetadata = issuer.createCredentialIssuerMetadata({
  credential_issuer: base,
  credential_endpoint: `${base}/credential`,
  nonce_endpoint: `${base}/nonce`,
  credential_configurations_supported: {
    [CONFIG_ID]: {
      format: "dc+sd-jwt",
      vct: `${base}/employee`,
      scope: CONFIG_ID,
      cryptographic_binding_methods_supported: ["jwk"],
      credential_signing_alg_values_supported: ["ES256"],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256"] } },
    },
  },
} as never);
const issuerMetadata = {
  originalDraftVersion: Openid4vciVersion.V1,
  credentialIssuer: credentialIssuerMetadata,
  authorizationServers: [asMetadata],
  knownCredentialConfigurations: issuer.getKnownCredentialConfigurationsSupported(credentialIssuerMetadata),
} as never;

const sdjwt = new SDJwtVcInstance({
  // The SD-JWT library hands over the JWS signing input; sign those bytes as they are.
  signer: async (data) =>
    Buffer.from(
      await webcrypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey as never, Buffer.from(data)),
    ).toString("base64url"),
  signAlg: "ES256",
  hasher: (data, alg) =>
    createHash(alg.replace("-", "").toLowerCase())
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  hashAlg: "sha-256",
  saltGenerator: () => randomBytes(16).toString("base64url"),
});

interface Transaction {
  claims: Record<string, unknown>;
  offer: unknown;
  code: string | null;
  done: boolean;
}
const transactions = new Map<string, Transaction>();
const byCode = new Map<string, string>();
const nonces = new Map<string, number>();

const requestLike = (req: http.IncomingMessage) => ({
  method: req.method as "POST",
  url: `${base}${req.url}`,
  headers: new Headers(req.headers as Record<string, string>),
});

async function handle(req: http.IncomingMessage, body: string): Promise<[number, unknown]> {
  const url = req.url ?? "/";
  if (req.method === "GET" && url === "/health") return [200, { ok: true }];
  if (req.method === "GET" && url === "/jwks") return [200, jwks];
  if (req.method === "POST" && url === "/transactions") {
    const id = randomUUID();
    const code = randomBytes(32).toString("base64url");
    const { credentialOffer, credentialOfferObject } = await issuer.createCredentialOffer({
      issuerMetadata,
      credentialConfigurationIds: [CONFIG_ID],
      grants: { [preAuthorizedCodeGrantIdentifier]: { "pre-authorized_code": code } },
      credentialOfferUri: `${base}/offers/${id}`,
    });
    transactions.set(id, {
      claims: JSON.parse(body).claims,
      offer: credentialOfferObject,
      code,
      done: false,
    });
    byCode.set(code, id);
    return [201, { id, credentialOffer }];
  }
  if (req.method === "GET" && url.startsWith("/offers/")) {
    const tx = transactions.get(url.slice("/offers/".length));
    return tx ? [200, tx.offer] : [404, { error: "not_found" }];
  }
  if (req.method === "POST" && url === "/token") {
    const form = Object.fromEntries(new URLSearchParams(body));
    const request = requestLike(req);
    const parsed = authorizationServer.parseAccessTokenRequest({ request, accessTokenRequest: form });
    if (parsed.grant.grantType !== preAuthorizedCodeGrantIdentifier)
      return [400, { error: "unsupported_grant_type" }];
    const id = byCode.get(parsed.grant.preAuthorizedCode);
    if (!id) return [400, { error: "invalid_grant" }];
    byCode.delete(parsed.grant.preAuthorizedCode);
    await authorizationServer.verifyPreAuthorizedCodeAccessTokenRequest({
      grant: parsed.grant,
      accessTokenRequest: parsed.accessTokenRequest,
      request,
      expectedPreAuthorizedCode: parsed.grant.preAuthorizedCode,
      authorizationServerMetadata: asMetadata,
    });
    return [
      200,
      await authorizationServer.createAccessTokenResponse({
        authorizationServer: base,
        audience: base,
        expiresInSeconds: 300,
        subject: id,
        signer: { method: "jwk", alg: "ES256", publicJwk },
      }),
    ];
  }
  if (req.method === "POST" && url === "/nonce") {
    const cNonce = randomBytes(32).toString("base64url");
    nonces.set(cNonce, Date.now() + 300_000);
    return [200, issuer.createNonceResponse({ cNonce, cNonceExpiresIn: 300 })];
  }
  if (req.method === "POST" && url === "/credential") {
    const { tokenPayload } = await resourceServer.verifyResourceRequest({
      request: requestLike(req),
      resourceServer: base,
      authorizationServers: [asMetadata],
    });
    const tx = transactions.get(tokenPayload.sub ?? "");
    if (!tx || tx.done) return [400, { error: "credential_request_denied" }];
    const credentialRequest = issuer.parseCredentialRequest({
      issuerMetadata,
      credentialRequest: JSON.parse(body),
    });
    const jwt = credentialRequest.proofs?.jwt?.[0];
    if (!jwt) return [400, { error: "invalid_proof" }];
    const nonce = JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()).nonce as string;
    const expires = nonces.get(nonce);
    nonces.delete(nonce);
    if (!expires || expires < Date.now()) return [400, { error: "invalid_nonce" }];
    const proof = await issuer.verifyCredentialRequestJwtProof({ issuerMetadata, jwt, expectedNonce: nonce });
    const holderJwk = proof.signer.method === "jwk" ? proof.signer.publicJwk : undefined;
    const credential = await sdjwt.issue(
      {
        iss: base,
        iat: Math.floor(Date.now() / 1000),
        vct: `${base}/employee`,
        cnf: { jwk: holderJwk },
        ...tx.claims,
      },
      { _sd: ["given_name", "family_name", "birthdate", "address"] } as never,
    );
    tx.done = true;
    tx.claims = {};
    return [200, issuer.createCredentialResponse({ credentialRequest, credentials: [{ credential }] })];
  }
  return [404, { error: "not_found" }];
}

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      handle(req, Buffer.concat(chunks).toString()).then(
        ([status, json]) => {
          res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
          res.end(JSON.stringify(json));
        },
        (error) => {
          const status = error instanceof Oauth2ServerErrorResponseError ? 400 : 500;
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: String(error?.message ?? error) }));
        },
      );
    });
  })
  .listen(port, "127.0.0.1");
