import { createProofJwt, generateEs256KeyPair, parseCredentialOfferLink } from "@cred/oid4vc";

/**
 * A minimal OpenID4VCI wallet for tests: resolves an offer link, reads the issuer metadata through the
 * well-known path, exchanges the pre-authorized code, fetches a nonce and requests credentials with proofs.
 */
export async function fetchJson(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

export async function resolveOffer(link: string) {
  const parsed = parseCredentialOfferLink(link);
  if ("offer" in parsed) return parsed.offer;
  const res = await fetchJson(parsed.offerUri);
  if (res.status !== 200) throw new Error(`offer fetch ${res.status}`);
  return res.body;
}

export function wellKnown(kind: string, identifier: string) {
  const url = new URL(identifier);
  return `${url.origin}/.well-known/${kind}${url.pathname}`;
}

export async function token(tokenEndpoint: string, form: Record<string, string>) {
  return fetchJson(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
}

export async function nonce(nonceEndpoint: string) {
  const res = await fetchJson(nonceEndpoint, { method: "POST" });
  return res.body.c_nonce as string;
}

export async function holderKey() {
  return generateEs256KeyPair();
}

export async function proof(
  key: Awaited<ReturnType<typeof holderKey>>,
  audience: string | string[],
  cNonce: string,
  iat = Math.floor(Date.now() / 1000),
) {
  return createProofJwt({
    privateKey: key.privateKey,
    publicJwk: key.publicJwk,
    audience,
    nonce: cNonce,
    iat,
  });
}

export async function requestCredential(endpoint: string, accessToken: string, body: unknown) {
  return fetchJson(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify(body),
  });
}

/** The whole happy path: offer → metadata → token → nonce → credential. */
export async function redeemOffer(link: string, options: { txCode?: string; proofs?: number } = {}) {
  const offer = await resolveOffer(link);
  const metadata = (await fetchJson(wellKnown("openid-credential-issuer", offer.credential_issuer))).body;
  const as = (await fetchJson(wellKnown("oauth-authorization-server", offer.credential_issuer))).body;
  const grant = offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"];
  const tokenRes = await token(as.token_endpoint, {
    grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
    "pre-authorized_code": grant["pre-authorized_code"],
    ...(options.txCode ? { tx_code: options.txCode } : {}),
  });
  if (tokenRes.status !== 200) throw new Error(`token ${tokenRes.status} ${JSON.stringify(tokenRes.body)}`);
  const cNonce = await nonce(metadata.nonce_endpoint);
  const keys = await Promise.all(Array.from({ length: options.proofs ?? 1 }, () => holderKey()));
  const jwts = await Promise.all(keys.map((k) => proof(k, offer.credential_issuer, cNonce)));
  const credentialRes = await requestCredential(metadata.credential_endpoint, tokenRes.body.access_token, {
    credential_configuration_id: offer.credential_configuration_ids[0],
    proofs: { jwt: jwts },
  });
  return {
    offer,
    metadata,
    as,
    tokenRes,
    credentialRes,
    keys,
    accessToken: tokenRes.body.access_token as string,
  };
}

/** The wallet endpoints an issuer's metadata and authorization server metadata announce. */
export async function walletEndpoints(credentialIssuer: string) {
  const metadata = (await fetchJson(wellKnown("openid-credential-issuer", credentialIssuer))).body;
  const as = (await fetchJson(wellKnown("oauth-authorization-server", credentialIssuer))).body;
  return {
    token: as.token_endpoint as string,
    credential: metadata.credential_endpoint as string,
    deferred: metadata.deferred_credential_endpoint as string,
    nonce: metadata.nonce_endpoint as string,
    notification: metadata.notification_endpoint as string,
  };
}
