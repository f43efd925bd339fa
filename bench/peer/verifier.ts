// The peer verifier: an OpenID4VP verifier assembled from independent open-source libraries (oid4vc-ts —
// @openid4vc/openid4vp's Openid4vpVerifier, by the Credo maintainers — and @sd-jwt/sd-jwt-vc), with
// in-memory state and node:http. It is a benchmark harness for those libraries, not a product: no
// persistence, no tenants, no API keys, no status-list check (the peer issuer's credentials carry no
// status). Run as a child process by bench/run.ts, next to the peer issuer (bench/peer/issuer.ts), whose
// signing key it pins (fetched once from ISSUER_URL/jwks at start).
//
// One verification: POST /sessions (signed JAR request object, x509_hash client id, DCQL for one SD-JWT VC
// with one required claim, direct_post.jwt with a fresh ECDH-ES P-256 key, A128GCM) → GET /requests/:id
// → POST /responses/:id (decrypt, parse, verify SD-JWT VC + KB-JWT) → GET /sessions/:id = verified.
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  randomUUID,
} from "node:crypto";
import http from "node:http";
// Test helper from our package, used only to mint the verifier's X.509 CA + leaf once at start-up
// (node:crypto cannot create certificates and the bench has no X.509 library of its own); nothing of it
// runs per request.
import { generateVerifierCertificate } from "@cred/oid4vc";
import {
  type CallbackContext,
  type Jwk,
  Oauth2ServerErrorResponseError,
  setGlobalConfig,
} from "@openid4vc/oauth2";
import { calculateX509HashClientIdPrefixValue, Openid4vpVerifier } from "@openid4vc/openid4vp";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { CompactSign, compactDecrypt, compactVerify, importJWK } from "jose";

setGlobalConfig({ allowInsecureUrls: true });
const port = Number(process.env.PORT);
const issuerUrl = process.env.ISSUER_URL ?? "";
const base = `http://127.0.0.1:${port}`;
const REQUIRED_CLAIM = "given_name";
const QUERY_ID = "employee";
const ENC = "A128GCM";

// The pinned issuer key: the peer issuer's only signing key.
const issuerJwks = (await (await fetch(`${issuerUrl}/jwks`)).json()) as { keys: Jwk[] };
const issuerKey = await importJWK(issuerJwks.keys[0] as never, "ES256");

// Request-object signer: an ES256 leaf (x5c) under a CA; client_id = x509_hash of the leaf.
const certificate = await generateVerifierCertificate({ dnsName: "peer-verifier.localhost" });
const leafKey = createPrivateKey({ key: certificate.privateKeyJwk as never, format: "jwk" });
const { d: _d, ...leafPublicJwk } = certificate.privateKeyJwk;
const hash: CallbackContext["hash"] = (data, alg) =>
  createHash(alg.replace("-", "").toLowerCase()).update(data).digest();
const clientId = `x509_hash:${await calculateX509HashClientIdPrefixValue({
  x509Certificate: certificate.leafDer,
  hash,
})}`;

interface Session {
  payload: Awaited<
    ReturnType<Openid4vpVerifier["createOpenId4vpAuthorizationRequest"]>
  >["authorizationRequestPayload"];
  requestJwt: string;
  decryptionKey: KeyObject;
  decryptionJwk: Jwk;
  status: "pending" | "verified" | "failed";
  reason?: string;
}
const sessions = new Map<string, Session>();

const callbacks: Omit<CallbackContext, "generateRandom" | "clientAuthentication"> = {
  hash,
  signJwt: async (_signer, { header, payload }) => ({
    jwt: await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader(header as never)
      .sign(leafKey),
    signerJwk: leafPublicJwk as Jwk,
  }),
  // Only for signed JARM responses, which this verifier does not ask for.
  verifyJwt: async (signer, { compact }) => {
    const jwk = signer.method === "jwk" ? signer.publicJwk : undefined;
    if (!jwk) return { verified: false };
    try {
      await compactVerify(compact, await importJWK(jwk as never, signer.alg));
      return { verified: true, signerJwk: jwk };
    } catch {
      return { verified: false };
    }
  },
  encryptJwe: () => {
    throw new Error("not used");
  },
  // Replaced per response by decryptWith(session).
  decryptJwe: () => ({ decrypted: false }),
};
const verifier = new Openid4vpVerifier({ callbacks });

const sdjwt = new SDJwtVcInstance({
  hasher: (data, alg) =>
    createHash(alg.replace("-", "").toLowerCase())
      .update(typeof data === "string" ? data : Buffer.from(data))
      .digest(),
  // Issuer signature against the pinned key (the JWS signing input and its base64url signature).
  verifier: async (data, signature) => {
    try {
      await compactVerify(`${data}.${signature}`, issuerKey, { algorithms: ["ES256"] });
      return true;
    } catch {
      return false;
    }
  },
  // KB-JWT against the holder key in the credential's cnf.jwk.
  kbVerifier: async (data, signature, payload) => {
    const jwk = (payload.cnf as { jwk?: Jwk } | undefined)?.jwk;
    if (!jwk) return false;
    try {
      await compactVerify(`${data}.${signature}`, await importJWK(jwk as never, "ES256"), {
        algorithms: ["ES256"],
      });
      return true;
    } catch {
      return false;
    }
  },
});

async function createSession(): Promise<{ id: string; authorizationRequestUri: string }> {
  const id = randomUUID();
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { d: _secret, ...pub } = privateKey.export({ format: "jwk" }) as Jwk;
  const encJwk = { ...pub, kid: randomBytes(16).toString("base64url"), alg: "ECDH-ES", use: "enc" } as Jwk;
  const created = await verifier.createOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: {
      response_type: "vp_token",
      client_id: clientId,
      response_mode: "direct_post.jwt",
      response_uri: `${base}/responses/${id}`,
      nonce: randomBytes(32).toString("base64url"),
      state: id,
      dcql_query: {
        credentials: [
          {
            id: QUERY_ID,
            format: "dc+sd-jwt",
            meta: { vct_values: [`${issuerUrl}/employee`] },
            claims: [{ path: [REQUIRED_CLAIM] }],
          },
        ],
      },
      client_metadata: {
        jwks: { keys: [encJwk] },
        encrypted_response_enc_values_supported: [ENC],
        vp_formats_supported: {
          "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"] },
        },
      },
    },
    jar: {
      requestUri: `${base}/requests/${id}`,
      jwtSigner: { method: "x5c", x5c: certificate.x5c, alg: "ES256" },
      expiresInSeconds: 300,
    },
  });
  const session: Session = {
    payload: created.authorizationRequestPayload,
    requestJwt: created.jar!.authorizationRequestJwt,
    decryptionKey: privateKey,
    decryptionJwk: encJwk,
    status: "pending",
  };
  sessions.set(id, session);
  return { id, authorizationRequestUri: created.authorizationRequest };
}

/** direct_post.jwt: ECDH-ES with the session's own key, A128GCM. */
const decryptWith =
  (session: Session): CallbackContext["decryptJwe"] =>
  async (jwe, options) => {
    if (options?.jwk?.kid !== session.decryptionJwk.kid) return { decrypted: false };
    try {
      const { plaintext } = await compactDecrypt(jwe, session.decryptionKey, {
        keyManagementAlgorithms: ["ECDH-ES"],
        contentEncryptionAlgorithms: [ENC],
      });
      return {
        decrypted: true,
        decryptionJwk: session.decryptionJwk,
        payload: new TextDecoder().decode(plaintext),
      };
    } catch {
      return { decrypted: false };
    }
  };

async function acceptResponse(session: Session, form: Record<string, string>): Promise<void> {
  if (session.status !== "pending") throw new Error("session is not pending");
  try {
    const parsed = await verifier.parseOpenid4vpAuthorizationResponse({
      authorizationResponse: form,
      authorizationRequestPayload: session.payload,
      callbacks: { ...callbacks, decryptJwe: decryptWith(session) },
    });
    if (parsed.type !== "dcql") throw new Error("expected a DCQL response");
    const presentation = parsed.dcql.presentations[QUERY_ID]?.[0];
    if (typeof presentation !== "string") throw new Error("no SD-JWT VC presentation");
    const { payload, kb } = await sdjwt.verify(presentation, {
      keyBindingNonce: parsed.expectedNonce,
      requiredClaimKeys: [REQUIRED_CLAIM],
    });
    if (payload.iss !== issuerUrl || payload.vct !== `${issuerUrl}/employee`)
      throw new Error("unexpected issuer/vct");
    if (kb?.payload.aud !== clientId) throw new Error("KB-JWT aud is not the client_id");
    if (Math.abs(Number(kb.payload.iat) - Date.now() / 1000) > 300)
      throw new Error("KB-JWT iat out of range");
    session.status = "verified";
  } catch (error) {
    session.status = "failed";
    session.reason = String((error as Error).message ?? error);
  } finally {
    // Keys and the request object are single use.
    session.requestJwt = "";
  }
}

async function handle(req: http.IncomingMessage, body: string): Promise<[number, unknown, string?]> {
  const url = req.url ?? "/";
  if (req.method === "GET" && url === "/health") return [200, { ok: true }];
  if (req.method === "POST" && url === "/sessions") return [201, await createSession()];
  if (req.method === "GET" && url.startsWith("/requests/")) {
    const session = sessions.get(url.slice("/requests/".length));
    if (!session?.requestJwt) return [404, { error: "not_found" }];
    return [200, session.requestJwt, "application/oauth-authz-req+jwt"];
  }
  if (req.method === "POST" && url.startsWith("/responses/")) {
    const session = sessions.get(url.slice("/responses/".length));
    if (!session) return [404, { error: "not_found" }];
    await acceptResponse(session, Object.fromEntries(new URLSearchParams(body)));
    return session.status === "verified"
      ? [200, {}]
      : [400, { error: "invalid_request", error_description: session.reason }];
  }
  if (req.method === "GET" && url.startsWith("/sessions/")) {
    const session = sessions.get(url.slice("/sessions/".length));
    if (!session) return [404, { error: "not_found" }];
    // A finished session is read once by the harness; drop it so memory stays flat under load.
    if (session.status !== "pending") sessions.delete(url.slice("/sessions/".length));
    return [200, { status: session.status, reason: session.reason }];
  }
  return [404, { error: "not_found" }];
}

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      handle(req, Buffer.concat(chunks).toString()).then(
        ([status, value, contentType]) => {
          res.writeHead(status, {
            "content-type": contentType ?? "application/json",
            "cache-control": "no-store",
          });
          res.end(contentType ? String(value) : JSON.stringify(value));
        },
        (error) => {
          const status = error instanceof Oauth2ServerErrorResponseError ? 400 : 500;
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: String(error?.message ?? error) }));
        },
      );
    });
  })
  .listen(port, "127.0.0.1");
