import { describe, expect, it } from "vitest";
import { OAuthError } from "../jose/oauth-error";
import {
  authorizationResponseUrl,
  parsePushedAuthorizationRequest,
  pkceChallengeOf,
  pkceVerifierMatches,
} from "./authorization-request";
import { AUTHORIZATION_CODE_GRANT, buildCredentialOffer, ZCredentialOffer } from "./credential-offer";
import { isAcceptableRedirectUri, isRegisteredRedirectUri } from "./redirect-uri";

// RFC 7636 Appendix B.
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

const base = {
  response_type: "code",
  client_id: "s6BhdRkqt3",
  redirect_uri: "https://client.example.org/cb",
  code_challenge: CHALLENGE,
  code_challenge_method: "S256",
  issuer_state: "eyJhbGciOiJSU0Et...FYUaBy",
};

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof OAuthError) return error.error;
    throw error;
  }
  return "none";
}

describe("PKCE S256", () => {
  it("computes RFC 7636's example challenge and matches only its verifier", () => {
    expect(pkceChallengeOf(VERIFIER)).toBe(CHALLENGE);
    expect(pkceVerifierMatches(VERIFIER, CHALLENGE)).toBe(true);
    expect(pkceVerifierMatches(`${VERIFIER.slice(0, -1)}a`, CHALLENGE)).toBe(false);
    // A verifier outside the alphabet or length is refused even if its hash matched.
    expect(pkceVerifierMatches("short", pkceChallengeOf("short"))).toBe(false);
    const spaced = `${VERIFIER} `;
    expect(pkceVerifierMatches(spaced, pkceChallengeOf(spaced))).toBe(false);
  });
});

describe("parsePushedAuthorizationRequest", () => {
  it("parses OpenID4VCI's authorization request with issuer_state, scope and details", () => {
    const details =
      '[{"type":"openid_credential","credential_configuration_id":"UniversityDegreeCredential"}]';
    expect(
      parsePushedAuthorizationRequest(
        new URLSearchParams({ ...base, state: "af0ifjsldkj", scope: "a  b", authorization_details: details }),
      ),
    ).toEqual({
      client_id: "s6BhdRkqt3",
      redirect_uri: "https://client.example.org/cb",
      code_challenge: CHALLENGE,
      issuer_state: base.issuer_state,
      state: "af0ifjsldkj",
      scope: ["a", "b"],
      authorization_details: [
        { type: "openid_credential", credential_configuration_id: "UniversityDegreeCredential" },
      ],
    });
  });

  it.each([
    ["no response_type", { response_type: undefined }, "invalid_request"],
    ["response_type token", { response_type: "token" }, "unsupported_response_type"],
    ["no client_id", { client_id: undefined }, "invalid_request"],
    ["no redirect_uri", { redirect_uri: undefined }, "invalid_request"],
    ["no challenge", { code_challenge: undefined }, "invalid_request"],
    ["no challenge method", { code_challenge_method: undefined }, "invalid_request"],
    ["plain", { code_challenge_method: "plain" }, "invalid_request"],
    ["a repeated issuer_state", { issuer_state: ["a", "b"] }, "invalid_request"],
    ["repeated client_id", { client_id: ["a", "b"] }, "invalid_request"],
    ["a request object", { request: "x.y.z" }, "invalid_request"],
    ["a request_uri", { request_uri: "urn:x" }, "invalid_request"],
    ["a long state", { state: "s".repeat(1_001) }, "invalid_request"],
    ["bad details", { authorization_details: '[{"type":"other"}]' }, "invalid_authorization_details"],
  ] as const)("refuses %s", (_label, change, code) => {
    const form = { ...base, ...change } as Record<string, string | string[] | undefined>;
    expect(errorOf(() => parsePushedAuthorizationRequest(form))).toBe(code);
  });
});

describe("redirect URIs and responses", () => {
  it.each([
    ["https://wallet.example/cb", true],
    ["eudi-openid4ci://authorize", true],
    ["com.example.wallet:/oauth2redirect", true],
    ["http://127.0.0.1:8123/cb", true],
    ["http://localhost/cb", true],
    ["http://wallet.example/cb", false],
    ["https://wallet.example/cb#frag", false],
    ["javascript:alert(1)", false],
    ["data:text/html,hi", false],
    ["/relative", false],
    [`https://wallet.example/${"a".repeat(2_000)}`, false],
  ])("%s acceptable: %s", (uri, ok) => {
    expect(isAcceptableRedirectUri(uri)).toBe(ok);
  });

  it("adds the response to the redirect URI's own query", () => {
    expect(
      authorizationResponseUrl("https://wallet.example/cb?app=1", {
        code: "a b",
        state: undefined,
        iss: "https://i",
      }),
    ).toBe("https://wallet.example/cb?app=1&code=a+b&iss=https%3A%2F%2Fi");
  });
});

describe("authorization code offer", () => {
  it("parses a wallet-initiated request: no issuer_state", () => {
    const { issuer_state: _, ...walletInitiated } = base;
    const parsed = parsePushedAuthorizationRequest(new URLSearchParams(walletInitiated));
    expect(parsed.issuer_state).toBeUndefined();
    expect(parsed.client_id).toBe(base.client_id);
  });

  it("builds OpenID4VCI's authorization code offer with issuer_state only", () => {
    const offer = buildCredentialOffer({
      credentialIssuer: "https://credential-issuer.example.com",
      configurationIds: ["UniversityDegreeCredential"],
      issuerState: "eyJhbGciOiJSU0Et...FYUaBy",
    });
    expect(offer).toEqual({
      credential_issuer: "https://credential-issuer.example.com",
      credential_configuration_ids: ["UniversityDegreeCredential"],
      grants: { [AUTHORIZATION_CODE_GRANT]: { issuer_state: "eyJhbGciOiJSU0Et...FYUaBy" } },
    });
    expect(ZCredentialOffer.parse(offer)).toEqual(offer);
  });
});

describe("registered redirect URIs", () => {
  it("match exactly, except an http loopback URI's port", () => {
    const registered = ["https://wallet.example/cb", "http://127.0.0.1:8080/cb", "http://localhost/cb"];
    expect(isRegisteredRedirectUri(registered, "https://wallet.example/cb")).toBe(true);
    expect(isRegisteredRedirectUri(registered, "https://wallet.example:8443/cb")).toBe(false);
    expect(isRegisteredRedirectUri(registered, "https://wallet.example/cb?x=1")).toBe(false);
    expect(isRegisteredRedirectUri(registered, "http://127.0.0.1:51234/cb")).toBe(true);
    expect(isRegisteredRedirectUri(registered, "http://127.0.0.1/cb")).toBe(true);
    expect(isRegisteredRedirectUri(registered, "http://localhost:9/cb")).toBe(true);
    expect(isRegisteredRedirectUri(registered, "http://127.0.0.1:51234/other")).toBe(false);
    expect(isRegisteredRedirectUri(registered, "http://[::1]:8080/cb")).toBe(false);
    expect(isRegisteredRedirectUri(registered, "http://127.0.0.1:80/cb")).toBe(true);
    expect(isRegisteredRedirectUri(["http://localhost"], "http://localhost:5000")).toBe(true);
  });
});
