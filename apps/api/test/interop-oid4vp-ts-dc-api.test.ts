import { presentSdJwtVc } from "@cred/oid4vc";
import { setGlobalConfig } from "@openid4vc/oauth2";
import type { CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, VALID_CLAIMS } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { oid4vpTsWallet } from "./oid4vp-ts-wallet";
import { redeemOffer } from "./wallet-client";

/**
 * oid4vc-ts (@openid4vc/openid4vp) as the wallet of a Digital Credentials API exchange (OpenID4VP
 * Appendix A): its parser and resolver accept our `dcApiRequest` (signed: x5c, client_id and
 * `expected_origins` against the origin; unsigned: the `origin:` effective client id), it builds the
 * response (`dc_api.jwt` encrypted to our key), and our engine verifies it.
 */

const ORIGIN = "https://shop.example.com";
let t: TestServer;
let issuer: ActiveIssuer;
let credential: string;
let holderKey: CryptoKey;
const wallet = oid4vpTsWallet();

beforeAll(async () => {
  setGlobalConfig({ allowInsecureUrls: true });
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  const tx = await call(t, "POST", "/v1.0/issuance-transactions", {
    key: t.adminKey,
    body: { credentialConfiguration: issuer.configuration, issuerId: issuer.issuerId, claims: VALID_CLAIMS },
  });
  const flow = await redeemOffer(tx.body.data.credentialOffer);
  credential = flow.credentialRes.body.credentials[0].credential;
  holderKey = flow.keys[0]!.privateKey;
  for (const responseMode of ["direct_post.jwt", "direct_post"]) {
    const r = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: {
        identifier: `dc-${responseMode.replace(".", "-")}`,
        displayName: "DC API interop",
        credentials: [
          {
            id: "employee",
            credentialTypes: [issuer.credentialType],
            trustedIssuers: [{ issuerId: issuer.issuerId }],
            requiredClaims: [["given_name"], ["family_name"]],
          },
        ],
        responseMode,
      },
    });
    expect(r.status).toBe(201);
  }
});
afterAll(() => t?.close());

describe.each([
  ["dc_api.jwt", "direct_post.jwt", true],
  ["dc_api.jwt", "direct_post.jwt", false],
  ["dc_api", "direct_post", true],
  ["dc_api", "direct_post", false],
] as const)("oid4vc-ts wallet over the DC API, %s (policy %s, signed: %s)", (mode, policyMode, signed) => {
  it("parses and resolves our request; our engine verifies its response", async () => {
    const created = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: `dc-${policyMode.replace(".", "-")}`, dcApi: { origins: [ORIGIN], signed } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const session = created.body.data;
    const { protocol, data } = session.dcApiRequest;

    const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: data });
    expect(parsed.type).toBe(signed ? "jar" : "openid4vp_dc_api");
    const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params as never,
      origin: ORIGIN,
    });
    const request = resolved.authorizationRequestPayload as Record<string, any>;
    expect(request.response_mode).toBe(mode);
    expect(resolved.client.prefix).toBe(signed ? "x509_hash" : "origin");
    expect(resolved.client.effective).toBe(signed ? request.client_id : `origin:${ORIGIN}`);
    if (signed) {
      await expect(
        wallet.resolveOpenId4vpAuthorizationRequest({
          authorizationRequestPayload: parsed.params as never,
          origin: "https://evil.example",
        }),
      ).rejects.toThrow();
    }

    const query = resolved.dcql?.query as { credentials: { id: string }[] };
    const presentation = await presentSdJwtVc(credential, {
      disclose: [["given_name"], ["family_name"]],
      kb: {
        privateKey: holderKey,
        aud: resolved.client.effective,
        nonce: request.nonce,
        iat: Math.floor(Date.now() / 1000),
      },
    });
    const response = await wallet.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request as never,
      origin: ORIGIN,
      authorizationResponsePayload: { vp_token: { [query.credentials[0]!.id]: [presentation] } } as never,
      ...(mode === "dc_api.jwt"
        ? {
            jarm: {
              encryption: { nonce: request.nonce },
              serverMetadata: {
                authorization_encryption_alg_values_supported: ["ECDH-ES"],
                authorization_encryption_enc_values_supported: ["A128GCM", "A256GCM"],
              } as never,
            },
          }
        : {}),
    });
    const answer =
      mode === "dc_api.jwt"
        ? { response: response.jarm!.responseJwt }
        : { vp_token: response.authorizationResponsePayload.vp_token };

    const submitted = await call(t, "POST", `/v1.0/verification-sessions/${session.id}/dc-api-responses`, {
      key: t.adminKey,
      body: { protocol, data: answer },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.data.status).toBe("verified");
    expect(submitted.body.data.result.credentials[0].claims).toEqual({
      given_name: "Erika",
      family_name: "Mustermann",
    });
  });
});
