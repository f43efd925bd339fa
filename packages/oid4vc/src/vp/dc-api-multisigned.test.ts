import { decodeProtectedHeader, generalVerify, importX509 } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createMultiSignedDcApiRequest, DC_API_PROTOCOL_MULTISIGNED, type GeneralJws } from "./dc-api";
import { policyToDcqlQuery } from "./dcql";
import { didJwkOf, didJwkVerificationMethod } from "./did-jwk";
import { generateNonce } from "./request-object";
import { generateResponseEncryptionKey } from "./response-encryption";
import { generateVerifierCertificate, type VerifierCertificate } from "./verifier-certificate";

/** OpenID4VP 1.0 Appendix A.3.2: the multi-signed request in the JWS JSON Serialization, checked with jose. */

const dcqlQuery = policyToDcqlQuery({
  credentials: [
    {
      id: "pid",
      credentialTypes: ["https://credentials.example.com/identity_credential"],
      requiredClaims: [["family_name"]],
      optionalClaims: [],
      holderBindingRequired: true,
    },
  ],
  credentialSets: null,
});
const ORIGINS = ["https://origin1.example.com", "https://origin2.example.com"];
const asPem = (der: string) => `-----BEGIN CERTIFICATE-----\n${der}\n-----END CERTIFICATE-----`;

let first: VerifierCertificate;
let second: VerifierCertificate;
beforeAll(async () => {
  [first, second] = await Promise.all([
    generateVerifierCertificate({ dnsName: "rp.example.com" }),
    generateVerifierCertificate({ dnsName: "rp.example.org" }),
  ]);
});

function decodePayload(jws: GeneralJws): Record<string, unknown> {
  return JSON.parse(Buffer.from(jws.payload, "base64url").toString("utf8"));
}

describe("createMultiSignedDcApiRequest (A.3.2)", () => {
  it("one payload, one signature per client identifier, each verified independently by jose's generalVerify", async () => {
    const { publicJwk } = generateResponseEncryptionKey();
    const { d: _d, ...secondPublic } = second.privateKeyJwk;
    const did = didJwkOf(secondPublic);
    const request = await createMultiSignedDcApiRequest(
      {
        responseMode: "dc_api.jwt",
        nonce: generateNonce(),
        dcqlQuery,
        encryptionJwk: publicJwk,
        transactionData: ["eyJ0eXBlIjoieCJ9"],
        expectedOrigins: ORIGINS,
        iat: 1_700_000_000,
        exp: 1_700_000_300,
      },
      [
        {
          clientId: first.clientIds.x509SanDns,
          signer: { privateKey: first.privateKeyJwk, x5c: first.x5c },
          verifierInfo: [{ format: "registration_cert", data: "eyJ.registration.jwt" }],
        },
        {
          clientId: `decentralized_identifier:${did}`,
          signer: { privateKey: second.privateKeyJwk, kid: didJwkVerificationMethod(did) },
        },
      ],
    );
    expect(request.protocol).toBe(DC_API_PROTOCOL_MULTISIGNED);
    const jws = (request.data as { request: GeneralJws }).request;
    expect(Object.keys(jws).sort()).toEqual(["payload", "signatures"]);
    expect(jws.signatures).toHaveLength(2);

    // Every request parameter but client_id and verifier_info is in the payload.
    const payload = decodePayload(jws);
    expect(payload).toMatchObject({
      response_type: "vp_token",
      response_mode: "dc_api.jwt",
      expected_origins: ORIGINS,
      dcql_query: dcqlQuery,
      transaction_data: ["eyJ0eXBlIjoieCJ9"],
      iat: 1_700_000_000,
      exp: 1_700_000_300,
    });
    expect((payload.client_metadata as { jwks: { keys: unknown[] } }).jwks.keys).toHaveLength(1);
    expect(payload).not.toHaveProperty("client_id");
    expect(payload).not.toHaveProperty("verifier_info");

    // client_id (and this signer's verifier_info) only in its protected header.
    const headers = jws.signatures.map((s) => decodeProtectedHeader({ protected: s.protected } as never));
    expect(headers[0]).toMatchObject({
      alg: "ES256",
      typ: "oauth-authz-req+jwt",
      x5c: first.x5c,
      client_id: first.clientIds.x509SanDns,
      verifier_info: [{ format: "registration_cert", data: "eyJ.registration.jwt" }],
    });
    expect(headers[1]).toMatchObject({
      alg: "ES256",
      kid: didJwkVerificationMethod(did),
      client_id: `decentralized_identifier:${did}`,
    });
    expect(headers[1]).not.toHaveProperty("verifier_info");
    expect(headers[1]).not.toHaveProperty("x5c");

    // Each signer's key verifies the JWS (jose picks the signature it made); a third key verifies none.
    const byFirst = await generalVerify(jws, await importX509(asPem(first.x5c[0]!), "ES256"));
    expect(byFirst.protectedHeader?.client_id).toBe(first.clientIds.x509SanDns);
    const bySecond = await generalVerify(jws, await importX509(asPem(second.x5c[0]!), "ES256"));
    expect(bySecond.protectedHeader?.client_id).toBe(`decentralized_identifier:${did}`);
    expect(JSON.parse(new TextDecoder().decode(bySecond.payload))).toEqual(payload);
    const stranger = await generateVerifierCertificate({ dnsName: "stranger.example" });
    await expect(generalVerify(jws, await importX509(asPem(stranger.x5c[0]!), "ES256"))).rejects.toThrow();
    // A payload changed after signing verifies under neither key.
    const tampered = {
      ...jws,
      payload: Buffer.from(JSON.stringify({ ...payload, nonce: "x".repeat(22) })).toString("base64url"),
    };
    await expect(generalVerify(tampered, await importX509(asPem(first.x5c[0]!), "ES256"))).rejects.toThrow();
  });

  it("refuses one signature, repeated client identifiers, origin: and a request without expected_origins", async () => {
    const base = { responseMode: "dc_api" as const, nonce: generateNonce(), dcqlQuery, iat: 1, exp: 2 };
    const x509 = { privateKey: first.privateKeyJwk, x5c: first.x5c };
    const one = { clientId: first.clientIds.x509Hash, signer: x509 };
    await expect(createMultiSignedDcApiRequest({ ...base, expectedOrigins: ORIGINS }, [one])).rejects.toThrow(
      /at least two/,
    );
    await expect(
      createMultiSignedDcApiRequest({ ...base, expectedOrigins: ORIGINS }, [one, { ...one }]),
    ).rejects.toThrow(/own client_id/);
    await expect(
      createMultiSignedDcApiRequest({ ...base, expectedOrigins: ORIGINS }, [
        one,
        { clientId: "origin:https://origin1.example.com", signer: x509 },
      ]),
    ).rejects.toThrow(/origin:/);
    await expect(
      createMultiSignedDcApiRequest({ ...base, expectedOrigins: [] }, [
        one,
        { clientId: first.clientIds.x509SanDns, signer: x509 },
      ]),
    ).rejects.toThrow(/expected_origins/);
  });
});
