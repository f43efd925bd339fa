import { describe, expect, it } from "vitest";
import { x509 } from "../x509/peculiar-x509";
import { ACCESS_CERTIFICATE_POLICY_OIDS, createAccessCertificateRequest } from "./access-certificate";

/**
 * The ETSI TS 119 411-8 defaults of the access-certificate request, read back from the CSR with
 * @peculiar/x509: the NCP-l-eudiwrp certificate policy unless others are named, and the relying party's
 * contact (GEN-6.6.1-07) as URI and email subjectAltNames beside the DNS names.
 */

const subject = { organisationName: "Webshop Oy", organisationIdentifier: "VATFI-12345678", country: "FI" };

function requestedExtensions(csrPem: string) {
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  const policies = csr.getExtension("2.5.29.32");
  const altNames = csr.getExtension("2.5.29.17");
  return {
    policies: policies ? new x509.CertificatePolicyExtension(policies.rawData).policies : null,
    altNames: altNames ? new x509.SubjectAlternativeNameExtension(altNames.rawData).names.toJSON() : [],
  };
}

describe("access certificate request: TS 119 411-8 policy and contact", () => {
  it("names NCP-l-eudiwrp (0.4.0.194118.1.2) when no policy is given", async () => {
    const { csrPem } = await createAccessCertificateRequest({
      ...subject,
      dnsNames: ["verifier.example.com"],
    });
    expect(requestedExtensions(csrPem).policies).toEqual(["0.4.0.194118.1.2"]);
    expect(ACCESS_CERTIFICATE_POLICY_OIDS["NCP-l-eudiwrp"]).toBe("0.4.0.194118.1.2");
  });

  it("names the policies given instead (QCP-l-eudiwrp here)", async () => {
    const { csrPem } = await createAccessCertificateRequest({
      ...subject,
      dnsNames: ["verifier.example.com"],
      policyOids: [ACCESS_CERTIFICATE_POLICY_OIDS["QCP-l-eudiwrp"]],
    });
    expect(requestedExtensions(csrPem).policies).toEqual(["0.4.0.194118.1.4"]);
  });

  it("requests the contact website and email as URI and rfc822Name subjectAltNames after the DNS names", async () => {
    const { csrPem } = await createAccessCertificateRequest({
      ...subject,
      dnsNames: ["verifier.example.com"],
      contactUris: ["https://webshop.example.com/support"],
      contactEmails: ["support@webshop.example.com"],
    });
    expect(requestedExtensions(csrPem).altNames).toEqual([
      { type: "dns", value: "verifier.example.com" },
      { type: "url", value: "https://webshop.example.com/support" },
      { type: "email", value: "support@webshop.example.com" },
    ]);
  });

  it("requests only the DNS names without a contact", async () => {
    const { csrPem } = await createAccessCertificateRequest({
      ...subject,
      dnsNames: ["verifier.example.com"],
    });
    expect(requestedExtensions(csrPem).altNames).toEqual([{ type: "dns", value: "verifier.example.com" }]);
  });
});
