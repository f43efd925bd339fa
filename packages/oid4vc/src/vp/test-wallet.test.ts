import { generateKeyPairSync } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Jwk } from "../jose/key-input";
import { parseAuthorizationResponse } from "./authorization-response";
import { policyToDcqlQuery } from "./dcql";
import { isVpError } from "./errors";
import {
  authorizationRequestLink,
  buildAuthorizationRequest,
  generateNonce,
  generateResponseCode,
  generateState,
  parseRequestUriPostBody,
  type ResponseMode,
  signRequestObject,
} from "./request-object";
import { decryptDirectPostJwt, generateResponseEncryptionKey } from "./response-encryption";
import { createTestCredentialVerifier, issueTestSdJwtVc } from "./test-sd-jwt";
import { type FetchLike, presentWithTestWallet } from "./test-wallet";
import { generateVerifierCertificate, type VerifierCertificate } from "./verifier-certificate";
import { type VpVerificationResult, verifyVpToken } from "./verify-presentation";

const VCT = "https://issuer.example/credentials/pid";
const BASE = "https://verifier.example.org";

function ecKeyPair(): { privateJwk: Jwk; publicJwk: Jwk } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    privateJwk: privateKey.export({ format: "jwk" }) as Jwk,
    publicJwk: publicKey.export({ format: "jwk" }) as Jwk,
  };
}

/** An in-memory verifier built only from this module's functions: what the API server does per session. */
function createVerifier(
  cert: VerifierCertificate,
  issuerPublicJwk: Jwk,
  mode: ResponseMode,
  requiredClaims: string[][],
) {
  const clientId = cert.clientIds.x509Hash;
  const nonce = generateNonce();
  const state = generateState();
  const encryption = generateResponseEncryptionKey();
  const query = policyToDcqlQuery({
    credentials: [
      { id: "pid", credentialTypes: [VCT], requiredClaims, optionalClaims: [], holderBindingRequired: true },
    ],
    credentialSets: null,
  });
  const session: { result?: VpVerificationResult; walletError?: string } = {};
  const now = Math.floor(Date.now() / 1000);

  const fetch: FetchLike = async (url, init) => {
    if (url === `${BASE}/request/1`) {
      const { walletNonce } =
        init?.method === "POST" ? parseRequestUriPostBody(new URLSearchParams(String(init.body))) : {};
      const payload = buildAuthorizationRequest({
        clientId,
        responseUri: `${BASE}/response/1`,
        responseMode: mode,
        nonce,
        state,
        dcqlQuery: query,
        ...(mode === "direct_post.jwt" ? { encryptionJwk: encryption.publicJwk } : {}),
        ...(walletNonce ? { walletNonce } : {}),
        iat: now,
        exp: now + 300,
      });
      const jwt = await signRequestObject(payload, { privateKey: cert.privateKeyJwk, x5c: cert.x5c });
      return new Response(jwt, { headers: { "content-type": "application/oauth-authz-req+jwt" } });
    }
    if (url === `${BASE}/response/1` && init?.method === "POST") {
      try {
        const parsed = await parseAuthorizationResponse(new URLSearchParams(String(init.body)), {
          responseMode: mode,
          decrypt: (jwe) => decryptDirectPostJwt(jwe, encryption.privateJwk),
        });
        if (parsed.state !== state) return Response.json({ error: "invalid_request" }, { status: 400 });
        if (parsed.kind === "error") {
          session.walletError = parsed.error;
          return Response.json({});
        }
        session.result = await verifyVpToken({
          query,
          vpToken: parsed.vpToken,
          verifyCredential: createTestCredentialVerifier({ issuerPublicJwk, clientId, nonce }),
        });
        return Response.json({ redirect_uri: `${BASE}/cb#response_code=${generateResponseCode()}` });
      } catch (error) {
        if (isVpError(error)) return Response.json(error.toJSON(), { status: error.status });
        throw error;
      }
    }
    return new Response("not found", { status: 404 });
  };
  return {
    fetch,
    session,
    link: authorizationRequestLink({ clientId, requestUri: `${BASE}/request/1`, requestUriMethod: "post" }),
  };
}

describe("test wallet against an in-memory verifier", () => {
  let cert: VerifierCertificate;
  const issuer = ecKeyPair();
  const holder = ecKeyPair();
  let credential: string;

  beforeAll(async () => {
    cert = await generateVerifierCertificate({ dnsName: "verifier.example.org" });
    credential = await issueTestSdJwtVc({
      issuerPrivateKey: issuer.privateJwk,
      iss: "https://issuer.example",
      vct: VCT,
      disclosable: { given_name: "Erika", family_name: "Mustermann", birthdate: "1964-08-12" },
      holderPublicJwk: holder.publicJwk,
    });
  });

  it.each(["direct_post", "direct_post.jwt"] as const)("completes a %s presentation", async (mode) => {
    const verifier = createVerifier(cert, issuer.publicJwk, mode, [["given_name"]]);
    const answer = await presentWithTestWallet({
      authorizationRequestUri: verifier.link,
      fetch: verifier.fetch,
      credential,
      holderPrivateKey: holder.privateJwk,
      trustedRootsPem: [cert.caCertificatePem],
    });
    expect(answer.status).toBe(200);
    expect((answer.body as { redirect_uri: string }).redirect_uri).toMatch(/#response_code=[\w-]{43}$/);
    // Only the requested claim was disclosed by the wallet …
    expect(answer.vpToken.pid?.[0]?.split("~")).toHaveLength(3);
    expect(verifier.session.result).toEqual({
      outcome: "verified",
      reasons: [],
      credentials: [
        {
          queryId: "pid",
          credentialType: VCT,
          issuer: "https://issuer.example",
          claims: { given_name: "Erika" },
          checks: { signature: "passed", expiry: "passed", holderBinding: "passed" },
        },
      ],
    });
  });

  it("uses request_uri_method=post and the wallet_nonce", async () => {
    const verifier = createVerifier(cert, issuer.publicJwk, "direct_post", [["given_name"]]);
    const answer = await presentWithTestWallet({
      authorizationRequestUri: verifier.link,
      fetch: verifier.fetch,
      credential,
      holderPrivateKey: holder.privateJwk,
      walletNonce: "qPmxiNFCR3QTm19POc8u",
    });
    expect(answer.request.wallet_nonce).toBe("qPmxiNFCR3QTm19POc8u");
    expect(verifier.session.result?.outcome).toBe("verified");
  });

  it("the verifier drops over-disclosed claims", async () => {
    const verifier = createVerifier(cert, issuer.publicJwk, "direct_post.jwt", [["given_name"]]);
    const answer = await presentWithTestWallet({
      authorizationRequestUri: verifier.link,
      fetch: verifier.fetch,
      credential,
      holderPrivateKey: holder.privateJwk,
      discloseAll: true,
    });
    expect(answer.vpToken.pid?.[0]?.split("~")).toHaveLength(5); // every disclosure sent
    expect(verifier.session.result?.outcome).toBe("verified");
    expect(verifier.session.result?.credentials[0]?.claims).toEqual({ given_name: "Erika" });
    expect(JSON.stringify(verifier.session.result)).not.toMatch(/Mustermann|1964/);
  });

  it("rejects a KB-JWT with the wrong nonce or audience, and a missing KB-JWT", async () => {
    for (const overrides of [{ nonce: "wrong-nonce" }, { aud: "x509_hash:someone-else" }]) {
      const verifier = createVerifier(cert, issuer.publicJwk, "direct_post", [["given_name"]]);
      await presentWithTestWallet({
        authorizationRequestUri: verifier.link,
        fetch: verifier.fetch,
        credential,
        holderPrivateKey: holder.privateJwk,
        keyBindingOverrides: overrides,
      });
      expect(verifier.session.result?.outcome).toBe("rejected");
      expect(verifier.session.result?.reasons[0]?.code).toBe("holder_binding_invalid");
    }
    const verifier = createVerifier(cert, issuer.publicJwk, "direct_post", [["given_name"]]);
    await presentWithTestWallet({
      authorizationRequestUri: verifier.link,
      fetch: verifier.fetch,
      credential,
      holderPrivateKey: holder.privateJwk,
      withoutKeyBinding: true,
    });
    expect(verifier.session.result?.reasons[0]?.code).toBe("holder_binding_missing");
  });

  it("rejects a credential from another issuer", async () => {
    const other = ecKeyPair();
    const forged = await issueTestSdJwtVc({
      issuerPrivateKey: other.privateJwk,
      iss: "https://issuer.example",
      vct: VCT,
      disclosable: { given_name: "Mallory" },
      holderPublicJwk: holder.publicJwk,
    });
    const verifier = createVerifier(cert, issuer.publicJwk, "direct_post.jwt", [["given_name"]]);
    await presentWithTestWallet({
      authorizationRequestUri: verifier.link,
      fetch: verifier.fetch,
      credential: forged,
      holderPrivateKey: holder.privateJwk,
    });
    expect(verifier.session.result?.outcome).toBe("rejected");
    expect(verifier.session.result?.reasons[0]?.code).toBe("invalid_signature");
  });

  it("rejects when a required claim is not in the credential", async () => {
    const verifier = createVerifier(cert, issuer.publicJwk, "direct_post", [["given_name"], ["nationality"]]);
    await presentWithTestWallet({
      authorizationRequestUri: verifier.link,
      fetch: verifier.fetch,
      credential,
      holderPrivateKey: holder.privateJwk,
    });
    expect(verifier.session.result?.reasons[0]?.code).toBe("missing_required_claims");
  });

  it("posts wallet errors", async () => {
    const verifier = createVerifier(cert, issuer.publicJwk, "direct_post.jwt", [["given_name"]]);
    const answer = await presentWithTestWallet({
      authorizationRequestUri: verifier.link,
      fetch: verifier.fetch,
      credential,
      holderPrivateKey: holder.privateJwk,
      error: { error: "access_denied", errorDescription: "declined" },
    });
    expect(answer.status).toBe(200);
    expect(verifier.session.walletError).toBe("access_denied");
  });

  it("refuses a request object whose x5c does not chain to the trusted root", async () => {
    const verifier = createVerifier(cert, issuer.publicJwk, "direct_post", [["given_name"]]);
    const stranger = await generateVerifierCertificate({ dnsName: "stranger.example" });
    await expect(
      presentWithTestWallet({
        authorizationRequestUri: verifier.link,
        fetch: verifier.fetch,
        credential,
        holderPrivateKey: holder.privateJwk,
        trustedRootsPem: [stranger.caCertificatePem],
      }),
    ).rejects.toThrow(/trusted root/);
  });
});
