// The Credo peer issuer: Credo 0.6's OpenID4VCI issuer (@credo-ts/openid4vc) serving its own routes —
// credential offer, token, nonce, credential — on an express app, with an SD-JWT VC signed under a
// self-signed X.509 certificate (x5c; Credo's SD-JWT VC issuers are did or x5c). Run as a child process by
// bench/run.ts, like the library peer (bench/peer/issuer.ts), and driven by the same workload
// (bench/peer/workloads.ts).
//
// Routes of the harness itself, outside Credo's: POST /transactions (a pre-authorized-code offer for the
// claims in the body; Credo keeps them in the issuance session's metadata), GET /certificate (the signing
// certificate, for the Credo peer verifier to trust) and GET /health.
import type { OpenId4VciCredentialRequestToCredentialMapper } from "@credo-ts/openid4vc";
import express from "express";
import { createCredoAgent, selfSignedCertificate } from "./agent";

const port = Number(process.env.PORT);
const base = `http://127.0.0.1:${port}`;
const ISSUER_ID = "peer";
const issuerUrl = `${base}/oid4vci/${ISSUER_ID}`;
const CONFIG_ID = "employee";
const vct = `${issuerUrl}/employee`;

const app = express();
let certificate: Awaited<ReturnType<typeof selfSignedCertificate>>;

const credentialRequestToCredentialMapper: OpenId4VciCredentialRequestToCredentialMapper = ({
  holderBinding,
  issuanceSession,
}) => ({
  type: "credentials",
  format: "dc+sd-jwt",
  credentials: holderBinding.keys.map((binding) => ({
    payload: { vct, ...(issuanceSession.issuanceMetadata?.claims as Record<string, unknown>) },
    holder: { method: "jwk", jwk: binding.jwk },
    issuer: { method: "x5c", x5c: [certificate], issuer: issuerUrl },
    disclosureFrame: { _sd: ["given_name", "family_name", "birthdate", "address"] },
  })),
});

const agent = await createCredoAgent({
  app,
  openid4vc: { issuer: { baseUrl: `${base}/oid4vci`, credentialRequestToCredentialMapper } },
});
certificate = await selfSignedCertificate(agent, "Credo peer issuer", [{ type: "url", value: issuerUrl }]);
const issuer = agent.openid4vc.issuer!;
await issuer.createIssuer({
  issuerId: ISSUER_ID,
  // Credo's default access-token (and c_nonce) key is Ed25519; P-256 keeps every signature of both peers'
  // flows ES256, so the ES256 bound counts all of them.
  accessTokenSignerKeyType: { kty: "EC", crv: "P-256" },
  credentialConfigurationsSupported: {
    [CONFIG_ID]: {
      format: "dc+sd-jwt",
      vct,
      scope: CONFIG_ID,
      cryptographic_binding_methods_supported: ["jwk"],
      credential_signing_alg_values_supported: ["ES256"],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256"] } },
    },
  },
});

app.get("/health", (_req, res) => {
  res.json({ ok: true });
});
app.get("/certificate", (_req, res) => {
  res.json({ certificate: certificate.toString("base64"), issuerUrl });
});
app.post("/transactions", express.json(), async (req, res) => {
  try {
    const { credentialOffer, issuanceSession } = await issuer.createCredentialOffer({
      issuerId: ISSUER_ID,
      credentialConfigurationIds: [CONFIG_ID],
      preAuthorizedCodeFlowConfig: {},
      issuanceMetadata: { claims: req.body.claims },
    });
    res.status(201).json({ id: issuanceSession.id, credentialOffer });
  } catch (error) {
    res.status(500).json({ error: String((error as Error).message ?? error) });
  }
});

app.listen(port, "127.0.0.1");
