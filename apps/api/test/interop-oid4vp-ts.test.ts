import { presentSdJwtVc } from "@cred/oid4vc";
import { setGlobalConfig } from "@openid4vc/oauth2";
import type { CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, VALID_CLAIMS } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { oid4vpTsWallet } from "./oid4vp-ts-wallet";
import { redeemOffer } from "./wallet-client";

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
});
afterAll(() => t?.close());

async function policy(responseMode: "direct_post" | "direct_post.jwt") {
  const identifier = `interop-${responseMode.replace(".", "-")}`;
  const r = await call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: {
      identifier,
      displayName: "Interop",
      credentials: [
        {
          id: "employee",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: issuer.issuerId }],
          requiredClaims: [["given_name"], ["family_name"]],
          optionalClaims: [],
        },
      ],
      responseMode,
      verifierInfo: [
        { format: "registration_cert", data: "eyJ0eXAiOiJyYyJ9.e30.c2ln", credentialIds: ["employee"] },
      ],
    },
  });
  expect(r.status).toBe(201);
  return identifier;
}

describe.each(["direct_post.jwt", "direct_post"] as const)("oid4vc-ts wallet, %s", (responseMode) => {
  it("resolves the signed request and its answer verifies the session", async () => {
    const created = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: await policy(responseMode) },
    });
    expect(created.status).toBe(201);
    const session = created.body.data;

    const parsed = wallet.parseOpenid4vpAuthorizationRequest({
      authorizationRequest: session.authorizationRequestUri,
    });
    const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params as never,
    });
    const request = resolved.authorizationRequestPayload as Record<string, any>;
    expect(resolved.client.prefix).toBe("x509_hash");
    expect(request.response_mode).toBe(responseMode);
    const query = resolved.dcql?.query as { credentials: { id: string; meta: { vct_values: string[] } }[] };
    expect(query.credentials[0]!.meta.vct_values).toEqual([issuer.credentialType]);
    // verifier_info as the library reads it (OpenID4VP §5.1).
    expect(request.verifier_info).toEqual([
      { format: "registration_cert", data: "eyJ0eXAiOiJyYyJ9.e30.c2ln", credential_ids: ["employee"] },
    ]);

    const presentation = await presentSdJwtVc(credential, {
      disclose: [["given_name"], ["family_name"]],
      kb: {
        privateKey: holderKey,
        aud: request.client_id,
        nonce: request.nonce,
        iat: Math.floor(Date.now() / 1000),
      },
    });
    const response = await wallet.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request as never,
      authorizationResponsePayload: { vp_token: { [query.credentials[0]!.id]: [presentation] } } as never,
      ...(responseMode === "direct_post.jwt"
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
    if (responseMode === "direct_post.jwt") expect(response.jarm?.responseJwt).toMatch(/^ey[^.]*\.\.|^ey/);
    const submitted = await wallet.submitOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request as never,
      authorizationResponsePayload: response.authorizationResponsePayload,
      ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
    } as never);
    expect(submitted.response.status).toBe(200);

    const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("verified");
    const claims = read.body.data.result.credentials[0].claims;
    expect(claims).toEqual({ given_name: "Erika", family_name: "Mustermann" });
  });
});
