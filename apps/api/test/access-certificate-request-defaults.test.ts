import { x509 } from "@cred/oid4vc/x509";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

/**
 * VerifierCertificates_CreateSigningRequest with the ETSI TS 119 411-8 defaults
 * (docs/api/relying-party-certificates.md): without `certificatePolicies` the CSR requests NCP-l-eudiwrp
 * (0.4.0.194118.1.2); `contactUri` and `contactEmail` are requested as URI and rfc822Name subjectAltNames.
 * The CSR is parsed with @peculiar/x509.
 */

const CSR = "/management/verifier-certificate/signing-request";
const SUBJECT = { organisationName: "Webshop Oy", organisationIdentifier: "VATFI-12345678", country: "FI" };

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

function requested(csrPem: string) {
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  const policies = csr.getExtension("2.5.29.32");
  const altNames = csr.getExtension("2.5.29.17");
  return {
    policies: policies ? new x509.CertificatePolicyExtension(policies.rawData).policies : null,
    altNames: altNames ? new x509.SubjectAlternativeNameExtension(altNames.rawData).names.toJSON() : [],
  };
}

describe("access certificate request: TS 119 411-8 defaults", () => {
  it("201: no certificatePolicies → the CSR requests NCP-l-eudiwrp", async () => {
    const r = await call(t, "POST", CSR, {
      key: t.adminKey,
      body: { ...SUBJECT, dnsNames: ["verifier.example.com"] },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(requested(r.body.data.csrPem)).toEqual({
      policies: ["0.4.0.194118.1.2"],
      altNames: [{ type: "dns", value: "verifier.example.com" }],
    });
  });

  it("201: the policies named replace the default; the contact website and email become subjectAltNames", async () => {
    const r = await call(t, "POST", CSR, {
      key: t.adminKey,
      body: {
        ...SUBJECT,
        dnsNames: ["verifier.example.com"],
        certificatePolicies: ["0.4.0.194118.1.4"],
        contactUri: "https://webshop.example.com/support",
        contactEmail: "wallet-support@webshop.example.com",
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(requested(r.body.data.csrPem)).toEqual({
      policies: ["0.4.0.194118.1.4"],
      altNames: [
        { type: "dns", value: "verifier.example.com" },
        { type: "url", value: "https://webshop.example.com/support" },
        { type: "email", value: "wallet-support@webshop.example.com" },
      ],
    });
  });

  it("400 ValidationFailed for a contact website that is not https and an email that is not one", async () => {
    for (const contact of [
      { contactUri: "http://webshop.example.com/support" },
      { contactEmail: "support" },
    ]) {
      const r = await call(t, "POST", CSR, { key: t.adminKey, body: { ...SUBJECT, ...contact } });
      expect(r.status).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
      expect(r.body.error.details[0].target).toBe(Object.keys(contact)[0]);
    }
  });
});
