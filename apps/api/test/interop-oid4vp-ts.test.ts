import type { CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, employeePolicyBody } from "./fixtures";
import { call, type TestServer } from "./harness";
import {
  heldCredentialScene,
  oid4vpTsWallet,
  presentWithOid4vpTs,
  resolveWithOid4vpTs,
} from "./oid4vp-ts-wallet";

let t: TestServer;
let issuer: ActiveIssuer;
let credential: string;
let holderKey: CryptoKey;

const wallet = oid4vpTsWallet();

beforeAll(async () => {
  ({ t, issuer, credential, holderKey } = await heldCredentialScene());
});
afterAll(() => t?.close());

async function policy(responseMode: "direct_post" | "direct_post.jwt") {
  const identifier = `interop-${responseMode.replace(".", "-")}`;
  const r = await call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: employeePolicyBody(issuer, identifier, {
      responseMode,
      verifierInfo: [
        { format: "registration_cert", data: "eyJ0eXAiOiJyYyJ9.e30.c2ln", credentialIds: ["employee"] },
      ],
    }),
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

    const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
    expect(resolved.client.prefix).toBe("x509_hash");
    expect(resolved.request.response_mode).toBe(responseMode);
    expect(resolved.query!.credentials[0]!.meta!.vct_values).toEqual([issuer.credentialType]);
    // verifier_info as the library reads it (OpenID4VP §5.1).
    expect(resolved.request.verifier_info).toEqual([
      { format: "registration_cert", data: "eyJ0eXAiOiJyYyJ9.e30.c2ln", credential_ids: ["employee"] },
    ]);

    // For direct_post.jwt oid4vc-ts encrypts the response to the key the request carries.
    const submitted = await presentWithOid4vpTs(wallet, resolved, { credential, holderKey });
    expect(submitted.response.status).toBe(200);

    const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("verified");
    const claims = read.body.data.result.credentials[0].claims;
    expect(claims).toEqual({ given_name: "Erika", family_name: "Mustermann" });
  });
});
