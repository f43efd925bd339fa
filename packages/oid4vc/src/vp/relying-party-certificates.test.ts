import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAccessCertificateRequest, organisationIdentifiersOf } from "./access-certificate";
import {
  InvalidRegistrationCertificateError,
  parseRegistrationCertificate,
  registrationExcesses,
} from "./registration-certificate";
import { createTestAccessCa, createTestRegistrar } from "./relying-party-test-authorities";
import type { DcqlQuery } from "./z-dcql";

const subject = {
  organisationName: "Webshop Oy",
  organisationIdentifier: "VATFI-12345678",
  country: "FI",
};

describe("access certificate request (ETSI TS 119 411-8 subject)", () => {
  it("is a PKCS#10 request OpenSSL verifies, with C, O, organizationIdentifier, CN, SAN and policies", async () => {
    const req = await createAccessCertificateRequest({
      ...subject,
      dnsNames: ["verifier.example.com"],
      policyOids: ["0.4.0.2042.1.2"],
    });
    const text = execFileSync("openssl", ["req", "-noout", "-text", "-verify"], {
      input: req.csrPem,
      stdio: ["pipe", "pipe", "pipe"],
    }).toString();
    expect(text).toContain("organizationIdentifier = VATFI-12345678");
    expect(text).toContain("C = FI, O = Webshop Oy");
    expect(text).toContain("DNS:verifier.example.com");
    expect(text).toContain("Policy: 0.4.0.2042.1.2");
    expect(req.privateKeyJwk?.d).toBeTruthy();
  });

  it("an issued certificate keeps the organisation identifier", async () => {
    const ca = await createTestAccessCa();
    const req = await createAccessCertificateRequest({ ...subject, dnsNames: ["localhost"] });
    const chain = await ca.issue(req.csrPem);
    const leaf = new X509Certificate(chain);
    expect(organisationIdentifiersOf(leaf.raw)).toEqual(["VATFI-12345678"]);
  });
});

const query: DcqlQuery = {
  credentials: [
    {
      id: "pid",
      format: "dc+sd-jwt",
      meta: { vct_values: ["urn:eudi:pid:1"] },
      claims: [{ path: ["given_name"] }, { path: ["address", "street_address"] }],
    },
  ],
} as DcqlQuery;

describe("registration certificate (ETSI TS 119 475 JWT)", () => {
  it("validates signature, chain, typ and reads subject, intermediary and credentials", async () => {
    const registrar = await createTestRegistrar();
    const jwt = await registrar.sign({
      name: "Webshop",
      sub: { legal_name: ["Webshop Oy"], id: [{ type: "VAT", identifier: "VATFI-12345678" }] },
      act: { sub: { id: "VATFI-87654321", name: "Intermediary Oy" } },
      credentials: [
        {
          format: "dc+sd-jwt",
          meta: "urn:eudi:pid:1",
          claim: [{ path: "given_name" }, { path: ["address"] }],
        },
      ],
    });
    const parsed = await parseRegistrationCertificate({ jwt, trustAnchorPem: registrar.rootPem });
    expect(parsed.subjectIds).toEqual(["VATFI-12345678"]);
    expect(parsed.intermediaryIds).toEqual(["VATFI-87654321"]);
    expect(parsed.credentials[0]).toEqual({
      format: "dc+sd-jwt",
      types: ["urn:eudi:pid:1"],
      claims: [["given_name"], ["address"]],
    });
    expect(registrationExcesses(parsed, query)).toEqual([]);
  });

  it("names each type and claim a query asks beyond the registration", async () => {
    const registration = {
      credentials: [{ format: "dc+sd-jwt", types: ["urn:eudi:pid:1"], claims: [["given_name"]] }],
    };
    expect(registrationExcesses(registration, query).map((e) => e.path)).toEqual([
      ["address", "street_address"],
    ]);
    const other = {
      ...query,
      credentials: [{ ...query.credentials[0]!, meta: { vct_values: ["urn:other"] } }],
    };
    expect(registrationExcesses(registration, other as DcqlQuery).map((e) => e.path)).toEqual([null]);
  });

  it("refuses another registrar's root, a wrong typ and an expired certificate", async () => {
    const registrar = await createTestRegistrar();
    const other = await createTestRegistrar();
    const payload = { sub: "VATFI-12345678", credentials: [] };
    const issuesOf = async (jwt: string, anchor = registrar.rootPem) => {
      try {
        await parseRegistrationCertificate({ jwt, trustAnchorPem: anchor });
        return [];
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidRegistrationCertificateError);
        return (error as InvalidRegistrationCertificateError).issues;
      }
    };
    expect(await issuesOf(await registrar.sign(payload), other.rootPem)).toEqual([
      expect.stringContaining("does not validate to the trust anchor"),
    ]);
    expect(await issuesOf(await registrar.sign(payload, { typ: "JWT" }))).toEqual([
      expect.stringContaining("typ must be 'rc-wrp+jwt'"),
    ]);
    expect(
      await issuesOf(await registrar.sign({ ...payload, exp: Math.floor(Date.now() / 1000) - 10 })),
    ).toEqual([expect.stringContaining("expired")]);
  });
});
