// The Credo peer verifier: Credo 0.6's OpenID4VP verifier (@credo-ts/openid4vc) serving its own routes —
// request object (JAR, signed under an x5c certificate, client id x509_hash) and the direct_post.jwt
// response endpoint, which decrypts, checks the DCQL query and verifies the SD-JWT VC and its KB-JWT. Run
// as a child process by bench/run.ts next to the Credo peer issuer (./issuer.ts), whose certificate it
// trusts (fetched once from ISSUER_CONTROL_URL/certificate at start), like the library peer verifier pins
// its issuer's key.
//
// Routes of the harness itself, outside Credo's: POST /sessions (an authorization request for one SD-JWT
// VC with one required claim), GET /sessions/:id (verified / failed / pending) and GET /health.
import express from "express";
import { createCredoAgent, selfSignedCertificate } from "./agent";

const port = Number(process.env.PORT);
const base = `http://127.0.0.1:${port}`;
const VERIFIER_ID = "peer";
const REQUIRED_CLAIM = "given_name";
const QUERY_ID = "employee";

const issuer = (await (await fetch(`${process.env.ISSUER_CONTROL_URL}/certificate`)).json()) as {
  certificate: string;
  issuerUrl: string;
};

const app = express();
const agent = await createCredoAgent({
  app,
  openid4vc: { verifier: { baseUrl: `${base}/oid4vp` } },
  x509: { trustedCertificates: [issuer.certificate] },
});
const certificate = await selfSignedCertificate(agent, "Credo peer verifier", [
  { type: "dns", value: "peer-verifier.localhost" },
]);
const verifier = agent.openid4vc.verifier!;
await verifier.createVerifier({ verifierId: VERIFIER_ID });

app.get("/health", (_req, res) => {
  res.json({ ok: true });
});
app.post("/sessions", async (_req, res) => {
  try {
    const { authorizationRequest, verificationSession } = await verifier.createAuthorizationRequest({
      verifierId: VERIFIER_ID,
      requestSigner: { method: "x5c", x5c: [certificate], clientIdPrefix: "x509_hash" },
      responseMode: "direct_post.jwt",
      version: "v1",
      dcql: {
        query: {
          credentials: [
            {
              id: QUERY_ID,
              format: "dc+sd-jwt",
              meta: { vct_values: [`${issuer.issuerUrl}/employee`] },
              claims: [{ path: [REQUIRED_CLAIM] }],
            },
          ],
        },
      },
    });
    res.status(201).json({ id: verificationSession.id, authorizationRequestUri: authorizationRequest });
  } catch (error) {
    res.status(500).json({ error: String((error as Error).message ?? error) });
  }
});
app.get("/sessions/:id", async (req, res) => {
  try {
    const session = await verifier.getVerificationSessionById(req.params.id);
    const status =
      session.state === "ResponseVerified" ? "verified" : session.state === "Error" ? "failed" : "pending";
    res.json({ status, reason: session.errorMessage });
  } catch (error) {
    res.status(404).json({ error: String((error as Error).message ?? error) });
  }
});

app.listen(port, "127.0.0.1");
