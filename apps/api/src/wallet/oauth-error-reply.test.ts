import { credentialError, dpopResourceError, OAuthError, tokenError, VpError } from "@cred/oid4vc";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { sendOAuthError } from "./oauth-error-reply";

/** What a wallet receives for `error`: status, the headers that matter, body. */
async function rendered(error: OAuthError) {
  const app = Fastify();
  app.get("/", (_request, reply) => sendOAuthError(reply, error));
  const response = await app.inject({ method: "GET", url: "/" });
  await app.close();
  const pick = (name: string) => response.headers[name.toLowerCase()];
  return {
    status: response.statusCode,
    contentType: pick("content-type"),
    cacheControl: pick("cache-control"),
    wwwAuthenticate: pick("www-authenticate"),
    dpopNonce: pick("dpop-nonce"),
    attestationChallenge: pick("oauth-client-attestation-challenge"),
    body: response.json(),
  };
}

describe("sendOAuthError", () => {
  it("renders a token endpoint error: status, JSON body, no-store, no challenge", async () => {
    expect(await rendered(tokenError("invalid_grant", "The code is used."))).toEqual({
      status: 400,
      contentType: "application/json; charset=utf-8",
      cacheControl: "no-store",
      wwwAuthenticate: undefined,
      dpopNonce: undefined,
      attestationChallenge: undefined,
      body: { error: "invalid_grant", error_description: "The code is used." },
    });
    const client = await rendered(tokenError("invalid_client", "No attestation."));
    expect(client).toMatchObject({ status: 401, cacheControl: "no-store", wwwAuthenticate: undefined });
  });

  it("renders a credential endpoint error as 400 no-store", async () => {
    expect(await rendered(credentialError("invalid_proof", "bad proof"))).toMatchObject({
      status: 400,
      cacheControl: "no-store",
      body: { error: "invalid_proof", error_description: "bad proof" },
    });
  });

  it("names the error in a Bearer challenge for invalid_token and insufficient_scope (RFC 6750 §3)", async () => {
    const invalid = new OAuthError("invalid_token", "The access token is invalid or expired.", {
      status: 401,
      challenge: { schemes: ["Bearer"], withError: true },
    });
    expect(await rendered(invalid)).toMatchObject({
      status: 401,
      cacheControl: "no-store",
      wwwAuthenticate:
        'Bearer error="invalid_token", error_description="The access token is invalid or expired."',
    });
    const scope = new OAuthError("insufficient_scope", "Not this one.", {
      status: 403,
      challenge: { schemes: ["Bearer"], withError: true },
    });
    expect(await rendered(scope)).toMatchObject({
      status: 403,
      wwwAuthenticate: 'Bearer error="insufficient_scope", error_description="Not this one."',
    });
  });

  it("names both schemes and no error when no credentials came (RFC 6750 §3.1, RFC 9449 §7.1)", async () => {
    const missing = new OAuthError("invalid_token", "An access token is required.", {
      status: 401,
      challenge: { schemes: ["Bearer", "DPoP"], withError: false },
    });
    expect(await rendered(missing)).toMatchObject({
      status: 401,
      wwwAuthenticate: 'Bearer, DPoP algs="ES256"',
      body: { error: "invalid_token", error_description: "An access token is required." },
    });
  });

  it("answers a DPoP problem at a resource with a DPoP challenge, and use_dpop_nonce with the nonce", async () => {
    expect(await rendered(dpopResourceError("invalid_dpop_proof", 'a "quoted" reason'))).toMatchObject({
      status: 401,
      wwwAuthenticate: `DPoP error="invalid_dpop_proof", error_description="a 'quoted' reason", algs="ES256"`,
      dpopNonce: undefined,
    });
    expect(await rendered(dpopResourceError("use_dpop_nonce", "Use the nonce.", "n-1"))).toMatchObject({
      status: 401,
      cacheControl: "no-store",
      wwwAuthenticate: 'DPoP error="use_dpop_nonce", error_description="Use the nonce.", algs="ES256"',
      dpopNonce: "n-1",
    });
  });

  it("hands out a fresh nonce or attestation challenge at the token endpoint, without a challenge", async () => {
    const nonce = new OAuthError("use_dpop_nonce", "Use the nonce.", { status: 400, dpopNonce: "n-2" });
    expect(await rendered(nonce)).toMatchObject({
      status: 400,
      wwwAuthenticate: undefined,
      dpopNonce: "n-2",
      attestationChallenge: undefined,
    });
    const challenge = new OAuthError("use_attestation_challenge", "Use the challenge.", {
      status: 400,
      attestationChallenge: "c-1",
    });
    expect(await rendered(challenge)).toMatchObject({
      status: 400,
      cacheControl: "no-store",
      dpopNonce: undefined,
      attestationChallenge: "c-1",
    });
  });

  it("renders a verifier error with its own status, no-store", async () => {
    const error = new VpError("invalid_request", "unknown, expired or completed request", { status: 404 });
    expect(await rendered(error)).toMatchObject({
      status: 404,
      cacheControl: "no-store",
      wwwAuthenticate: undefined,
      body: { error: "invalid_request", error_description: "unknown, expired or completed request" },
    });
  });
});
