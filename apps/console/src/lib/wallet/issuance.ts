import {
  base64url,
  CompactEncrypt,
  calculateJwkThumbprint,
  compactDecrypt,
  exportJWK,
  importJWK,
  type JWK,
} from "jose";
import { DpopSession } from "./dpop";
import { asObject, failure, getJson, type HttpAnswer, send, WalletError } from "./http";
import { createHolderKey, randomToken, signJwt } from "./keys";
import { type CredentialOffer, PRE_AUTHORIZED_GRANT, wellKnown } from "./offer";
import {
  deleteFlow,
  deleteKey,
  getFlow,
  getKey,
  putCredential,
  putFlow,
  type StoredCredential,
} from "./store";
import { verifyIssuerSignature } from "./trust";

/** The client_id the sandbox wallet uses as a public client (no registration, no attestation). */
export const WALLET_CLIENT_ID = "cred-sandbox-wallet";

export interface IssuerContext {
  offer: CredentialOffer;
  issuerMetadata: Record<string, unknown>;
  asMetadata: Record<string, unknown>;
}

/** Reads the issuer's metadata and its authorization server's (OpenID4VCI §12.2, RFC 8414). */
export async function loadIssuer(offer: CredentialOffer): Promise<IssuerContext> {
  const issuerMetadata = await getJson(
    "Fetching the issuer metadata",
    wellKnown("openid-credential-issuer", offer.credential_issuer),
  );
  if (issuerMetadata.credential_issuer !== offer.credential_issuer) {
    throw new WalletError("The issuer metadata names another credential_issuer than the offer.");
  }
  const servers = Array.isArray(issuerMetadata.authorization_servers)
    ? (issuerMetadata.authorization_servers as string[])
    : [];
  const asIdentifier =
    offer.grants?.authorization_code?.authorization_server ?? servers[0] ?? offer.credential_issuer;
  const asMetadata = await getJson(
    "Fetching the authorization server metadata",
    wellKnown("oauth-authorization-server", asIdentifier),
  );
  return { offer, issuerMetadata, asMetadata };
}

export function issuerName(context: IssuerContext): string | null {
  const display = context.issuerMetadata.display;
  const first = Array.isArray(display) ? asObject(display[0]) : {};
  return typeof first.name === "string" ? first.name : null;
}

export function configurationName(context: IssuerContext, configurationId: string): string | null {
  const configuration = asObject(
    asObject(context.issuerMetadata.credential_configurations_supported)[configurationId],
  );
  const display = asObject(configuration.credential_metadata).display ?? configuration.display;
  const first = Array.isArray(display) ? asObject(display[0]) : {};
  return typeof first.name === "string" ? first.name : null;
}

/** DPoP when the authorization server supports it with ES256 (HAIP wallets always bind their tokens). */
async function dpopFor(context: IssuerContext): Promise<DpopSession | null> {
  const algs = context.asMetadata.dpop_signing_alg_values_supported;
  if (!Array.isArray(algs) || !algs.includes("ES256")) return null;
  return new DpopSession(await createHolderKey());
}

interface TokenAnswer {
  accessToken: string;
  tokenType: string;
  credentialIdentifiers: string[];
}

async function tokenRequest(
  context: IssuerContext,
  dpop: DpopSession | null,
  form: Record<string, string>,
): Promise<TokenAnswer> {
  const endpoint = context.asMetadata.token_endpoint;
  if (typeof endpoint !== "string") throw new WalletError("The authorization server has no token_endpoint.");
  const init = {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form).toString(),
  };
  const answer = dpop ? await dpop.send(endpoint, init) : await send(endpoint, init);
  if (answer.status !== 200) throw failure("The token request", answer);
  const body = asObject(answer.body);
  if (typeof body.access_token !== "string") throw new WalletError("The token response has no access_token.");
  const details = Array.isArray(body.authorization_details) ? body.authorization_details : [];
  const credentialIdentifiers = details.flatMap((d) => {
    const ids = asObject(d).credential_identifiers;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
  });
  return {
    accessToken: body.access_token,
    tokenType: String(body.token_type ?? "Bearer"),
    credentialIdentifiers,
  };
}

/** Pre-authorized code flow (OpenID4VCI §6.1), with the tx_code the person typed where the offer asks one. */
export async function redeemPreAuthorizedCode(
  context: IssuerContext,
  txCode: string | undefined,
): Promise<StoredCredential[]> {
  const grant = context.offer.grants?.[PRE_AUTHORIZED_GRANT];
  if (!grant) throw new WalletError("The offer has no pre-authorized code.");
  if (grant.tx_code && !txCode) throw new WalletError("Enter the transaction code you were given.");
  const dpop = await dpopFor(context);
  try {
    const token = await tokenRequest(context, dpop, {
      grant_type: PRE_AUTHORIZED_GRANT,
      "pre-authorized_code": grant["pre-authorized_code"],
      ...(grant.tx_code && txCode ? { tx_code: txCode } : {}),
    });
    return await requestCredentials(context, dpop, token);
  } finally {
    // The DPoP key served this one issuance (its token is not kept).
    if (dpop) await deleteKey(dpop.key.id);
  }
}

async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url.encode(new Uint8Array(digest));
}

/**
 * Authorization code flow (OpenID4VCI §5, HAIP): PAR with PKCE S256, the offer's issuer_state and a DPoP
 * proof, then the browser goes to the authorization endpoint; the issuer sends it back to /wallet with
 * `code`, `state` and `iss` (finishAuthorizationCode). Returns the URL to open.
 */
export async function startAuthorizationCode(context: IssuerContext, redirectUri: string): Promise<string> {
  const grant = context.offer.grants?.authorization_code;
  if (!grant) throw new WalletError("The offer has no authorization code grant.");
  const par = context.asMetadata.pushed_authorization_request_endpoint;
  const authorize = context.asMetadata.authorization_endpoint;
  if (typeof authorize !== "string")
    throw new WalletError("The authorization server has no authorization_endpoint.");
  const configurationId = context.offer.credential_configuration_ids[0]!;
  const dpop = await dpopFor(context);
  const state = randomToken();
  const codeVerifier = randomToken(48);
  const params: Record<string, string> = {
    response_type: "code",
    client_id: WALLET_CLIENT_ID,
    redirect_uri: redirectUri,
    code_challenge: await pkceChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    authorization_details: JSON.stringify([
      { type: "openid_credential", credential_configuration_id: configurationId },
    ]),
    ...(grant.issuer_state ? { issuer_state: grant.issuer_state } : {}),
    ...(dpop ? { dpop_jkt: await dpop.thumbprint() } : {}),
  };
  await putFlow({
    state,
    codeVerifier,
    redirectUri,
    clientId: WALLET_CLIENT_ID,
    credentialIssuer: context.offer.credential_issuer,
    configurationId,
    dpopKeyId: dpop?.key.id ?? null,
    createdAt: new Date().toISOString(),
  });
  const target = new URL(authorize);
  if (typeof par === "string") {
    const init = {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(params).toString(),
    };
    const answer = dpop ? await dpop.send(par, init) : await send(par, init);
    if (answer.status !== 201 && answer.status !== 200)
      throw failure("The pushed authorization request", answer);
    const requestUri = asObject(answer.body).request_uri;
    if (typeof requestUri !== "string") throw new WalletError("The PAR answer has no request_uri.");
    target.searchParams.set("client_id", WALLET_CLIENT_ID);
    target.searchParams.set("request_uri", requestUri);
  } else {
    for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  }
  return target.toString();
}

/** Back from /authorize: checks `state` and `iss` (RFC 9207), exchanges the code, gets the credential. */
export async function finishAuthorizationCode(
  params: URLSearchParams,
  loadContext: (credentialIssuer: string, configurationId: string) => Promise<IssuerContext>,
): Promise<StoredCredential[]> {
  const state = params.get("state") ?? "";
  const flow = await getFlow(state);
  if (!flow)
    throw new WalletError("This authorization answer does not belong to a flow this wallet started.");
  await deleteFlow(state);
  const context = await loadContext(flow.credentialIssuer, flow.configurationId);
  const error = params.get("error");
  if (error)
    throw new WalletError(
      `The issuer refused the authorization: ${error} ${params.get("error_description") ?? ""}`,
    );
  const iss = params.get("iss");
  if (
    context.asMetadata.authorization_response_iss_parameter_supported === true &&
    iss !== context.asMetadata.issuer
  ) {
    throw new WalletError("The authorization answer comes from another issuer (iss).");
  }
  const code = params.get("code");
  if (!code) throw new WalletError("The authorization answer has no code.");
  const key = flow.dpopKeyId ? await getKey(flow.dpopKeyId) : undefined;
  const dpop = key ? new DpopSession(key) : null;
  try {
    const token = await tokenRequest(context, dpop, {
      grant_type: "authorization_code",
      code,
      client_id: flow.clientId,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.codeVerifier,
    });
    return await requestCredentials(context, dpop, token);
  } finally {
    if (flow.dpopKeyId) await deleteKey(flow.dpopKeyId);
  }
}

/** One proof of possession of a new holder key (openid4vci-proof+jwt, OpenID4VCI Appendix F.1). */
async function proofFor(context: IssuerContext, cNonce: string | undefined) {
  const key = await createHolderKey();
  const jwt = await signJwt(
    key,
    { typ: "openid4vci-proof+jwt", jwk: key.publicJwk as never },
    {
      aud: context.offer.credential_issuer,
      iat: Math.floor(Date.now() / 1000),
      ...(cNonce ? { nonce: cNonce } : {}),
    },
  );
  return { key, jwt };
}

interface Encryption {
  /** Encrypts the request body to the issuer's key. */
  seal: (body: Record<string, unknown>) => Promise<string>;
  responseKey: CryptoKey;
  responseJwk: JWK;
  enc: string;
}

/**
 * Credential request and response encryption (OpenID4VCI §10) when the issuer's metadata requires it:
 * the request as a JWE (ECDH-ES) to the issuer's `credential_request_encryption` key, naming a fresh
 * ephemeral ECDH-ES key of the wallet for the response (its private half non-extractable).
 */
async function encryptionFor(context: IssuerContext): Promise<Encryption | null> {
  const request = asObject(context.issuerMetadata.credential_request_encryption);
  const response = asObject(context.issuerMetadata.credential_response_encryption);
  if (request.encryption_required !== true && response.encryption_required !== true) return null;
  const keys = Array.isArray(asObject(request.jwks).keys) ? (asObject(request.jwks).keys as JWK[]) : [];
  const issuerKey = keys.find((k) => k.alg === "ECDH-ES" || k.use === "enc");
  if (!issuerKey) throw new WalletError("The issuer requires encryption but publishes no encryption key.");
  const encValues = Array.isArray(request.enc_values_supported)
    ? (request.enc_values_supported as string[])
    : [];
  const enc = encValues.includes("A128GCM") ? "A128GCM" : (encValues[0] ?? "A128GCM");
  const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
  const { kty, crv, x, y } = await exportJWK(pair.publicKey);
  const responseJwk: JWK = { kty, crv, x, y, alg: "ECDH-ES", use: "enc" };
  responseJwk.kid = await calculateJwkThumbprint(responseJwk);
  const publicKey = await importJWK(issuerKey, "ECDH-ES");
  return {
    enc,
    responseKey: pair.privateKey,
    responseJwk,
    seal: (body) =>
      new CompactEncrypt(new TextEncoder().encode(JSON.stringify(body)))
        .setProtectedHeader({ alg: "ECDH-ES", enc, ...(issuerKey.kid ? { kid: issuerKey.kid } : {}) })
        .encrypt(publicKey),
  };
}

async function readCredentialAnswer(answer: HttpAnswer, encryption: Encryption | null) {
  if ((answer.headers.get("content-type") ?? "").startsWith("application/jwt")) {
    if (!encryption)
      throw new WalletError("The issuer encrypted a response the wallet did not ask to encrypt.");
    const { plaintext } = await compactDecrypt(answer.text.trim(), encryption.responseKey);
    return asObject(JSON.parse(new TextDecoder().decode(plaintext)));
  }
  return asObject(answer.body);
}

async function requestCredentials(
  context: IssuerContext,
  dpop: DpopSession | null,
  token: TokenAnswer,
): Promise<StoredCredential[]> {
  const metadata = context.issuerMetadata;
  const endpoint = metadata.credential_endpoint;
  if (typeof endpoint !== "string") throw new WalletError("The issuer has no credential_endpoint.");
  const configurationId = context.offer.credential_configuration_ids[0]!;
  let cNonce: string | undefined;
  if (typeof metadata.nonce_endpoint === "string") {
    const answer = await send(metadata.nonce_endpoint, { method: "POST" });
    if (answer.status !== 200) throw failure("Fetching a nonce", answer);
    dpop?.remember(answer);
    cNonce = String(asObject(answer.body).c_nonce ?? "") || undefined;
  }
  const proof = await proofFor(context, cNonce);
  const encryption = await encryptionFor(context);
  const request: Record<string, unknown> = {
    ...(token.credentialIdentifiers[0]
      ? { credential_identifier: token.credentialIdentifiers[0] }
      : { credential_configuration_id: configurationId }),
    proofs: { jwt: [proof.jwt] },
    ...(encryption
      ? { credential_response_encryption: { jwk: encryption.responseJwk, enc: encryption.enc } }
      : {}),
  };
  const init = {
    method: "POST",
    headers: {
      "content-type": encryption ? "application/jwt" : "application/json",
      accept: encryption ? "application/jwt" : "application/json",
    },
    body: encryption ? await encryption.seal(request) : JSON.stringify(request),
  };
  const answer =
    dpop && token.tokenType.toLowerCase() === "dpop"
      ? await dpop.send(endpoint, init, token.accessToken)
      : await send(endpoint, {
          ...init,
          headers: { ...init.headers, authorization: `Bearer ${token.accessToken}` },
        });
  // No credential for this holder key: drop it.
  if (answer.status !== 200) await deleteKey(proof.key.id);
  if (answer.status === 202) {
    throw new WalletError(
      "The issuer deferred this credential; the sandbox wallet does not poll for deferred credentials.",
    );
  }
  if (answer.status !== 200) throw failure("The credential request", answer);
  const body = await readCredentialAnswer(answer, encryption);
  const credentials = Array.isArray(body.credentials) ? body.credentials : [];
  const stored: StoredCredential[] = [];
  for (const entry of credentials) {
    const compact = asObject(entry).credential;
    if (typeof compact !== "string") continue;
    await verifyIssuerSignature(compact.split("~")[0] ?? "", context.offer.credential_issuer);
    stored.push(
      await putCredential({
        id: crypto.randomUUID(),
        compact,
        keyId: proof.key.id,
        credentialIssuer: context.offer.credential_issuer,
        issuerName: issuerName(context),
        configurationId,
        displayName: configurationName(context, configurationId),
        receivedAt: new Date().toISOString(),
      }),
    );
  }
  if (stored.length === 0) throw new WalletError("The credential response holds no credential.");
  await notifyAccepted(context, dpop, token, body.notification_id);
  return stored;
}

/** Tells the issuer the credential was stored (OpenID4VCI §11); a failure here loses nothing. */
async function notifyAccepted(
  context: IssuerContext,
  dpop: DpopSession | null,
  token: TokenAnswer,
  id: unknown,
) {
  const endpoint = context.issuerMetadata.notification_endpoint;
  if (typeof endpoint !== "string" || typeof id !== "string") return;
  const init = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ notification_id: id, event: "credential_accepted" }),
  };
  try {
    if (dpop && token.tokenType.toLowerCase() === "dpop") await dpop.send(endpoint, init, token.accessToken);
    else
      await send(endpoint, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${token.accessToken}` },
      });
  } catch {
    // best effort
  }
}
