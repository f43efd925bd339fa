import { describe, expect, it } from "vitest";
import { generateEs256KeyPair } from "../jose/keys";
import { didJwkOf, didJwkVerificationMethod } from "./did-jwk";
import {
  authorizationRequestLinkByValue,
  authorizationRequestLinkWithRequest,
  redirectUriClientId,
} from "./request-by-value";
import { buildAuthorizationRequest } from "./request-object";

describe("requests by value", () => {
  it("puts every parameter in the link, objects as JSON, without the JWT claims", () => {
    const responseUri = "https://verifier.example/verifier/responses/s1";
    const payload = buildAuthorizationRequest({
      clientId: redirectUriClientId(responseUri),
      responseUri,
      responseMode: "direct_post",
      nonce: "n".repeat(43),
      state: "s1",
      dcqlQuery: { credentials: [{ id: "pid", format: "dc+sd-jwt", meta: { vct_values: ["urn:pid"] } }] },
      iat: 1,
      exp: 2,
    });
    const link = new URL(authorizationRequestLinkByValue(payload));
    expect(link.protocol).toBe("openid4vp:");
    expect(link.searchParams.get("client_id")).toBe(`redirect_uri:${responseUri}`);
    expect(JSON.parse(link.searchParams.get("dcql_query")!)).toEqual(payload.dcql_query);
    expect(JSON.parse(link.searchParams.get("client_metadata")!)).toEqual(payload.client_metadata);
    for (const claim of ["aud", "iat", "exp", "request_uri"])
      expect(link.searchParams.has(claim)).toBe(false);
  });

  it("a signed request object goes in `request`, on a custom scheme too", () => {
    const link = new URL(
      authorizationRequestLinkWithRequest({
        clientId: "x509_hash:abc",
        request: "e.y.z",
        scheme: "https://wallet.example/authorize",
      }),
    );
    expect(link.origin).toBe("https://wallet.example");
    expect(Object.fromEntries(link.searchParams)).toEqual({ client_id: "x509_hash:abc", request: "e.y.z" });
  });
});

describe("did:jwk", () => {
  it("is the base64url JSON of the key's required members, stable whatever else the JWK carries", async () => {
    const { publicJwk } = await generateEs256KeyPair();
    const did = didJwkOf({ ...publicJwk, kid: "k", use: "sig" } as never);
    expect(did).toBe(didJwkOf(publicJwk));
    const decoded = JSON.parse(Buffer.from(did.slice("did:jwk:".length), "base64url").toString());
    expect(decoded).toEqual({ crv: "P-256", kty: "EC", x: publicJwk.x, y: publicJwk.y });
    expect(didJwkVerificationMethod(did)).toBe(`${did}#0`);
  });

  it("refuses a key that is not a public P-256 key", () => {
    expect(() => didJwkOf({ kty: "OKP", crv: "Ed25519", x: "a" } as never)).toThrow(TypeError);
  });
});
