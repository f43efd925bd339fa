import { describe, expect, it } from "vitest";
import { OAuthError } from "../jose/oauth-error";
import { buildAuthorizationServerMetadata } from "./authorization-server-metadata";
import {
  buildCredentialOffer,
  credentialOfferLink,
  PRE_AUTHORIZED_CODE_GRANT,
  parseCredentialOfferLink,
} from "./credential-offer";
import { parseCredentialRequest } from "./credential-request";
import { buildCredentialIssuerMetadata } from "./issuer-metadata";
import { parseTokenRequest } from "./token-request";
import { identifierFromWellKnownUrl, wellKnownPath } from "./well-known";

function oauthError(fn: () => unknown): { error: string; status: number; description?: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof OAuthError)
      return { error: e.error, status: e.status, description: e.error_description };
    throw e;
  }
  return { error: "none", status: 0 };
}

describe("credential offer", () => {
  it("builds the spec's pre-authorized code example (examples/credential_offer_pre-authz_code.json)", () => {
    expect(
      buildCredentialOffer({
        credentialIssuer: "https://credential-issuer.example.com",
        configurationIds: ["UniversityDegreeCredential"],
        preAuthorizedCode: "adhjhdjajkdkhjhdj",
        txCode: {
          description: "Please provide the one-time code which was sent to your mobile phone via SMS",
        },
      }),
    ).toEqual({
      credential_issuer: "https://credential-issuer.example.com",
      credential_configuration_ids: ["UniversityDegreeCredential"],
      grants: {
        "urn:ietf:params:oauth:grant-type:pre-authorized_code": {
          "pre-authorized_code": "adhjhdjajkdkhjhdj",
          tx_code: {
            description: "Please provide the one-time code which was sent to your mobile phone via SMS",
          },
        },
      },
    });
  });

  it("keeps an empty tx_code object (a code is still required) and omits tx_code when not given", () => {
    const withEmpty = buildCredentialOffer({
      credentialIssuer: "https://credential-issuer.example.com",
      configurationIds: ["UniversityDegree_LDP_VC"],
      preAuthorizedCode: "adhjhdjajkdkhjhdj",
      txCode: {},
    });
    expect(withEmpty.grants?.[PRE_AUTHORIZED_CODE_GRANT]?.tx_code).toEqual({});
    const without = buildCredentialOffer({
      credentialIssuer: "https://i.example",
      configurationIds: ["a"],
      preAuthorizedCode: "c",
    });
    expect(without.grants?.[PRE_AUTHORIZED_CODE_GRANT]).toEqual({ "pre-authorized_code": "c" });
  });

  it("refuses invalid offers", () => {
    const base = { credentialIssuer: "https://i.example", preAuthorizedCode: "c" };
    expect(() => buildCredentialOffer({ ...base, configurationIds: [] })).toThrow();
    expect(() => buildCredentialOffer({ ...base, configurationIds: ["a", "a"] })).toThrow();
    expect(() =>
      buildCredentialOffer({ ...base, configurationIds: ["a"], txCode: { description: "x".repeat(301) } }),
    ).toThrow();
    expect(() => buildCredentialOffer({ ...base, configurationIds: ["a"], preAuthorizedCode: "" })).toThrow();
  });

  it("produces by-value links that decode to the spec's example", () => {
    // §4.1.2 example (by value, deep link): decoding the spec's link gives this offer.
    const specLink =
      "openid-credential-offer://?credential_offer=%7B%22credential_issuer%22:%22https://credential-issuer.example.com%22,%22credential_configuration_ids%22:%5B%22org.iso.18013.5.1.mDL%22%5D,%22grants%22:%7B%22urn:ietf:params:oauth:grant-type:pre-authorized_code%22:%7B%22pre-authorized_code%22:%22oaKazRN8I0IbtZ0C7JuMn5%22,%22tx_code%22:%7B%22input_mode%22:%22text%22,%22description%22:%22Please%20enter%20the%20serial%20number%20of%20your%20physical%20drivers%20license%22%7D%7D%7D%7D";
    const parsed = parseCredentialOfferLink(specLink);
    const offer = buildCredentialOffer({
      credentialIssuer: "https://credential-issuer.example.com",
      configurationIds: ["org.iso.18013.5.1.mDL"],
      preAuthorizedCode: "oaKazRN8I0IbtZ0C7JuMn5",
      txCode: {
        input_mode: "text",
        description: "Please enter the serial number of your physical drivers license",
      },
    });
    expect(parsed).toEqual({ offer });
    const ours = credentialOfferLink({ offer });
    expect(ours.startsWith("openid-credential-offer://?credential_offer=%7B")).toBe(true);
    expect(parseCredentialOfferLink(ours)).toEqual({ offer });
    expect(credentialOfferLink({ offer }, "haip-vci://").startsWith("haip-vci://?credential_offer=")).toBe(
      true,
    );
  });

  it("produces by-reference links like the spec's example", () => {
    const link = credentialOfferLink({
      offerUri: "https://server.example.com/credential-offer/GkurKxf5T0Y-mnPFCHqWOMiZi4VS138cQO_V7PZHAdM",
    });
    expect(link).toBe(
      "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fserver.example.com%2Fcredential-offer%2FGkurKxf5T0Y-mnPFCHqWOMiZi4VS138cQO_V7PZHAdM",
    );
    expect(parseCredentialOfferLink(link)).toEqual({
      offerUri: "https://server.example.com/credential-offer/GkurKxf5T0Y-mnPFCHqWOMiZi4VS138cQO_V7PZHAdM",
    });
    expect(() => credentialOfferLink({ offerUri: "http://insecure.example/o" })).toThrow();
    expect(() =>
      parseCredentialOfferLink("openid-credential-offer://?credential_offer=%7B%7D&credential_offer_uri=x"),
    ).toThrow();
  });
});

describe("credential issuer metadata", () => {
  const display = [
    { name: "IdentityCredential", locale: "en-US", background_color: "#12107c", text_color: "#FFFFFF" },
  ];
  const claims = [
    {
      path: ["given_name"],
      display: [
        { name: "Given Name", locale: "en-US" },
        { name: "Vorname", locale: "de-DE" },
      ],
    },
    { path: ["address"] },
    { path: ["address", "street_address"], mandatory: true },
  ];

  it("matches the shape of the spec's dc+sd-jwt example (examples/credential_metadata_sd_jwt_vc.json)", () => {
    const metadata = buildCredentialIssuerMetadata({
      credentialIssuer: "https://issuer.example.com/tenant-1",
      credentialEndpoint: "https://issuer.example.com/tenant-1/credential",
      nonceEndpoint: "https://issuer.example.com/tenant-1/nonce",
      notificationEndpoint: "https://issuer.example.com/tenant-1/notification",
      batchSize: 10,
      display: [{ name: "Example Issuer", locale: "en-US" }],
      configurations: [
        {
          id: "SD_JWT_VC_example_in_OpenID4VCI",
          vct: "SD_JWT_VC_example_in_OpenID4VCI",
          scope: "SD_JWT_VC_example_in_OpenID4VCI",
          display,
          claims,
          holderBinding: true,
        },
        { id: "unbound", vct: "urn:unbound", scope: "unbound", holderBinding: false },
      ],
    });
    expect(metadata).toEqual({
      credential_issuer: "https://issuer.example.com/tenant-1",
      credential_endpoint: "https://issuer.example.com/tenant-1/credential",
      nonce_endpoint: "https://issuer.example.com/tenant-1/nonce",
      notification_endpoint: "https://issuer.example.com/tenant-1/notification",
      batch_credential_issuance: { batch_size: 10 },
      display: [{ name: "Example Issuer", locale: "en-US" }],
      credential_configurations_supported: {
        SD_JWT_VC_example_in_OpenID4VCI: {
          format: "dc+sd-jwt",
          scope: "SD_JWT_VC_example_in_OpenID4VCI",
          cryptographic_binding_methods_supported: ["jwk"],
          credential_signing_alg_values_supported: ["ES256"],
          proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256"] } },
          vct: "SD_JWT_VC_example_in_OpenID4VCI",
          credential_metadata: { display, claims },
        },
        unbound: {
          format: "dc+sd-jwt",
          vct: "urn:unbound",
          scope: "unbound",
          credential_signing_alg_values_supported: ["ES256"],
        },
      },
    });
  });

  it("omits batch issuance for batch size 1 and refuses duplicates and missing nonce endpoints", () => {
    const base = {
      credentialIssuer: "https://i.example",
      credentialEndpoint: "https://i.example/credential",
      nonceEndpoint: "https://i.example/nonce",
      configurations: [{ id: "a", vct: "urn:a", scope: "a", holderBinding: true }],
    };
    expect(
      buildCredentialIssuerMetadata({ ...base, batchSize: 1 }).batch_credential_issuance,
    ).toBeUndefined();
    expect(() =>
      buildCredentialIssuerMetadata({
        ...base,
        configurations: [...base.configurations, ...base.configurations],
      }),
    ).toThrow(/duplicate/);
    expect(() => buildCredentialIssuerMetadata({ ...base, nonceEndpoint: undefined })).toThrow(/nonce/);
  });
});

describe("authorization server metadata", () => {
  it("advertises the authorization code flow with PAR required, PKCE S256 and iss", () => {
    expect(
      buildAuthorizationServerMetadata({
        issuer: "https://i.example/t",
        tokenEndpoint: "https://i.example/t/token",
        authorizationEndpoint: "https://i.example/t/authorize",
        pushedAuthorizationRequestEndpoint: "https://i.example/t/par",
      }),
    ).toMatchObject({
      authorization_endpoint: "https://i.example/t/authorize",
      pushed_authorization_request_endpoint: "https://i.example/t/par",
      require_pushed_authorization_requests: true,
      grant_types_supported: ["authorization_code", "urn:ietf:params:oauth:grant-type:pre-authorized_code"],
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it("advertises anonymous pre-authorized code access", () => {
    expect(
      buildAuthorizationServerMetadata({
        issuer: "https://i.example/t",
        tokenEndpoint: "https://i.example/t/token",
      }),
    ).toEqual({
      issuer: "https://i.example/t",
      token_endpoint: "https://i.example/t/token",
      grant_types_supported: ["urn:ietf:params:oauth:grant-type:pre-authorized_code"],
      "pre-authorized_grant_anonymous_access_supported": true,
      token_endpoint_auth_methods_supported: ["none"],
    });
  });
});

describe("well-known path insertion", () => {
  it.each([
    [
      "openid-credential-issuer",
      "https://ex.com/tenant",
      "https://ex.com/.well-known/openid-credential-issuer/tenant",
    ],
    ["jwt-vc-issuer", "https://ex.com/tenant/1234", "https://ex.com/.well-known/jwt-vc-issuer/tenant/1234"],
    ["oauth-authorization-server", "https://ex.com", "https://ex.com/.well-known/oauth-authorization-server"],
    [
      "oauth-authorization-server",
      "https://ex.com/",
      "https://ex.com/.well-known/oauth-authorization-server",
    ],
    [
      "openid-credential-issuer",
      "https://ex.com/a/b/",
      "https://ex.com/.well-known/openid-credential-issuer/a/b",
    ],
    [
      "openid-credential-issuer",
      "http://localhost:3000/t",
      "http://localhost:3000/.well-known/openid-credential-issuer/t",
    ],
  ] as const)("%s of %s is %s", (kind, identifier, expected) => {
    expect(wellKnownPath(kind, identifier)).toBe(expected);
  });

  it("refuses identifiers with query or fragment", () => {
    expect(() => wellKnownPath("openid-credential-issuer", "https://ex.com/t?x=1")).toThrow();
    expect(() => wellKnownPath("openid-credential-issuer", "https://ex.com/t#f")).toThrow();
    expect(() => wellKnownPath("openid-credential-issuer", "ftp://ex.com/t")).toThrow();
  });

  it("inverts for routing", () => {
    expect(
      identifierFromWellKnownUrl(
        "openid-credential-issuer",
        "https://ex.com/.well-known/openid-credential-issuer/a/b",
      ),
    ).toBe("https://ex.com/a/b");
    expect(
      identifierFromWellKnownUrl("jwt-vc-issuer", "/.well-known/jwt-vc-issuer/t1", "https://ex.com"),
    ).toBe("https://ex.com/t1");
    expect(
      identifierFromWellKnownUrl(
        "oauth-authorization-server",
        "https://ex.com/.well-known/oauth-authorization-server",
      ),
    ).toBe("https://ex.com");
    expect(
      identifierFromWellKnownUrl("jwt-vc-issuer", "https://ex.com/.well-known/jwt-vc-issuerX/t"),
    ).toBeNull();
    expect(
      identifierFromWellKnownUrl("jwt-vc-issuer", "https://ex.com/t/.well-known/jwt-vc-issuer"),
    ).toBeNull();
    expect(() => identifierFromWellKnownUrl("jwt-vc-issuer", "/.well-known/jwt-vc-issuer/t")).toThrow();
    for (const id of ["https://ex.com/t", "https://ex.com/a/b/c"]) {
      expect(
        identifierFromWellKnownUrl("openid-credential-issuer", wellKnownPath("openid-credential-issuer", id)),
      ).toBe(id);
    }
  });
});

describe("parseTokenRequest", () => {
  it("parses the spec's pre-authorized code example", () => {
    const body =
      "grant_type=urn:ietf:params:oauth:grant-type:pre-authorized_code&pre-authorized_code=SplxlOBeZQQYbYS6WxSbIA&tx_code=493536&authorization_details=%5B%7B%22type%22%3A%20%22openid_credential%22%2C%20%22credential_configuration_id%22%3A%20%22UniversityDegreeCredential%22%7D%5D";
    expect(parseTokenRequest(new URLSearchParams(body))).toEqual({
      grant_type: PRE_AUTHORIZED_CODE_GRANT,
      "pre-authorized_code": "SplxlOBeZQQYbYS6WxSbIA",
      tx_code: "493536",
      authorization_details: [
        { type: "openid_credential", credential_configuration_id: "UniversityDegreeCredential" },
      ],
    });
  });

  it("parses RFC 6749's authorization code example with a PKCE verifier", () => {
    const body =
      "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&redirect_uri=https%3A%2F%2Fclient%2Eexample%2Ecom%2Fcb&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&client_id=s6BhdRkqt3";
    expect(parseTokenRequest(new URLSearchParams(body))).toEqual({
      grant_type: "authorization_code",
      code: "SplxlOBeZQQYbYS6WxSbIA",
      redirect_uri: "https://client.example.com/cb",
      code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
      client_id: "s6BhdRkqt3",
    });
  });

  it("accepts a plain record and ignores unknown parameters", () => {
    expect(
      parseTokenRequest({ grant_type: PRE_AUTHORIZED_CODE_GRANT, "pre-authorized_code": "c", foo: "bar" }),
    ).toEqual({ grant_type: PRE_AUTHORIZED_CODE_GRANT, "pre-authorized_code": "c" });
  });

  it.each([
    ["missing grant_type", { "pre-authorized_code": "c" }, "invalid_request"],
    ["client_credentials grant", { grant_type: "client_credentials" }, "unsupported_grant_type"],
    ["authorization_code grant without code", { grant_type: "authorization_code" }, "invalid_request"],
    [
      "repeated code_verifier",
      { grant_type: "authorization_code", code: "c", code_verifier: ["a", "b"] },
      "invalid_request",
    ],
    ["missing code", { grant_type: PRE_AUTHORIZED_CODE_GRANT }, "invalid_request"],
    [
      "repeated code",
      { grant_type: PRE_AUTHORIZED_CODE_GRANT, "pre-authorized_code": ["a", "b"] },
      "invalid_request",
    ],
    [
      "empty tx_code",
      { grant_type: PRE_AUTHORIZED_CODE_GRANT, "pre-authorized_code": "c", tx_code: "" },
      "invalid_request",
    ],
    [
      "bad authorization_details",
      { grant_type: PRE_AUTHORIZED_CODE_GRANT, "pre-authorized_code": "c", authorization_details: "{" },
      "invalid_authorization_details",
    ],
    [
      "authorization_details of another type",
      {
        grant_type: PRE_AUTHORIZED_CODE_GRANT,
        "pre-authorized_code": "c",
        authorization_details: '[{"type":"x"}]',
      },
      "invalid_authorization_details",
    ],
  ] as const)("rejects %s", (_label, form, code) => {
    const err = oauthError(() => parseTokenRequest(form as Record<string, string | string[]>));
    expect(err.error).toBe(code);
    expect(err.status).toBe(400);
  });
});

describe("parseCredentialRequest", () => {
  it("parses the spec's credential_identifier example with a batch of jwt proofs", () => {
    expect(
      parseCredentialRequest({
        credential_identifier: "CivilEngineeringDegree-2023",
        proofs: { jwt: ["a.b.c", "d.e.f"] },
      }),
    ).toEqual({ credential_identifier: "CivilEngineeringDegree-2023", proofs: { jwt: ["a.b.c", "d.e.f"] } });
    expect(
      parseCredentialRequest(
        { credential_configuration_id: "pid", proofs: { jwt: ["a.b.c"] }, unknown_param: 1 },
        { isKnownConfigurationId: (id) => id === "pid", proofsRequired: true },
      ),
    ).toEqual({ credential_configuration_id: "pid", proofs: { jwt: ["a.b.c"] } });
    expect(parseCredentialRequest({ credential_configuration_id: "pid" })).toEqual({
      credential_configuration_id: "pid",
    });
  });

  it.each([
    ["a non-object body", "x", "invalid_credential_request"],
    ["an array body", [], "invalid_credential_request"],
    ["neither identifier", { proofs: { jwt: ["a"] } }, "invalid_credential_request"],
    [
      "both identifiers",
      { credential_identifier: "a", credential_configuration_id: "b" },
      "invalid_credential_request",
    ],
    ["a non-string id", { credential_configuration_id: 5 }, "invalid_credential_request"],
    [
      "two proof types",
      { credential_configuration_id: "pid", proofs: { jwt: ["a"], attestation: ["b"] } },
      "invalid_credential_request",
    ],
    [
      "an empty proofs object",
      { credential_configuration_id: "pid", proofs: {} },
      "invalid_credential_request",
    ],
    [
      "an empty jwt array",
      { credential_configuration_id: "pid", proofs: { jwt: [] } },
      "invalid_credential_request",
    ],
    [
      "a non-string proof",
      { credential_configuration_id: "pid", proofs: { jwt: [{}] } },
      "invalid_credential_request",
    ],
    [
      "proofs not an object",
      { credential_configuration_id: "pid", proofs: ["a"] },
      "invalid_credential_request",
    ],
    [
      "an unsupported proof type",
      { credential_configuration_id: "pid", proofs: { di_vp: [{}] } },
      "invalid_proof",
    ],
    [
      "response encryption",
      { credential_configuration_id: "pid", credential_response_encryption: {} },
      "invalid_encryption_parameters",
    ],
  ] as const)("rejects %s", (_label, body, code) => {
    const err = oauthError(() => parseCredentialRequest(body));
    expect(err.error).toBe(code);
    expect(err.status).toBe(400);
  });

  it("ignores the draft-era singular proof, as any unknown parameter (§8.2)", () => {
    const draft = { proof_type: "jwt", jwt: "a" };
    expect(
      parseCredentialRequest({ credential_configuration_id: "pid", proof: draft, proofs: { jwt: ["b"] } }),
    ).toEqual({ credential_configuration_id: "pid", proofs: { jwt: ["b"] } });
    // Alone it leaves the proofs missing: invalid_proof where they are required, saying why.
    const alone = oauthError(() =>
      parseCredentialRequest({ credential_configuration_id: "pid", proof: draft }, { proofsRequired: true }),
    );
    expect(alone.error).toBe("invalid_proof");
    expect(alone.description).toMatch(/proofs/);
  });

  it("rejects unknown configurations and identifiers, and missing proofs when required", () => {
    const options = {
      isKnownConfigurationId: (id: string) => id === "pid",
      isKnownCredentialIdentifier: () => false,
    };
    expect(
      oauthError(() => parseCredentialRequest({ credential_configuration_id: "x" }, options)).error,
    ).toBe("unknown_credential_configuration");
    expect(oauthError(() => parseCredentialRequest({ credential_identifier: "x" }, options)).error).toBe(
      "unknown_credential_identifier",
    );
    expect(
      oauthError(() =>
        parseCredentialRequest({ credential_configuration_id: "pid" }, { proofsRequired: true }),
      ).error,
    ).toBe("invalid_proof");
  });
});
