import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrustListError } from "./errors";
import { SERVICE_STATUS, SERVICE_TYPE } from "./model";
import {
  buildTrustedListXml,
  createTestSigner,
  signTrustedListXml,
  type TestSigner,
} from "./test-trusted-lists";
import { verifyTrustedListXml } from "./trusted-list-xml";

const XMLSEC1 = ["/usr/bin/xmlsec1", "/usr/local/bin/xmlsec1"].find((path) => existsSync(path));
const workDir = mkdtempSync(join(tmpdir(), "trust-lists-ec-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let ecSigner: TestSigner;
let serviceCa: TestSigner;
let signed: string;

beforeAll(async () => {
  [ecSigner, serviceCa] = await Promise.all([
    createTestSigner("CN=Test ECDSA TSL signer", { kind: "ec" }),
    createTestSigner("CN=Test CA", { kind: "ec" }),
  ]);
  signed = signTrustedListXml(
    buildTrustedListXml({
      territory: "AT",
      providers: [
        {
          name: "Test TSP",
          services: [
            {
              type: SERVICE_TYPE.caQc,
              status: SERVICE_STATUS.granted,
              statusStartingTime: new Date(Date.now() - 86_400_000),
              certificatesBase64: [serviceCa.certificateBase64],
            },
          ],
        },
      ],
    }),
    ecSigner,
  );
}, 60_000);

describe("TS 119 612 list signed with ECDSA-SHA256 (XML Signature 1.1, r||s signature value)", () => {
  it("verifies with our verifier", () => {
    expect(signed).toContain("http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256");
    const list = verifyTrustedListXml(signed, { anchors: [ecSigner.certificatePem] });
    expect(list.schemeInformation.territory).toBe("AT");
  });

  it("refuses a changed byte (BadSignature)", () => {
    const tampered = signed.replace("Test TSP", "Test TSQ");
    expect(() => verifyTrustedListXml(tampered, { anchors: [ecSigner.certificatePem] })).toThrow(
      TrustListError,
    );
    try {
      verifyTrustedListXml(tampered, { anchors: [ecSigner.certificatePem] });
    } catch (error) {
      expect((error as TrustListError).code).toBe("BadSignature");
    }
  });

  it.skipIf(!XMLSEC1)(
    `xmlsec1 (not written here) accepts our ECDSA signature${XMLSEC1 ? "" : ` [xmlsec1 is not installed: apt-get install xmlsec1]`}`,
    () => {
      const file = join(workDir, "list.xml");
      const ca = join(workDir, "signer.pem");
      writeFileSync(file, signed);
      writeFileSync(ca, ecSigner.certificatePem);
      expect(() =>
        execFileSync(XMLSEC1 as string, ["--verify", "--trusted-pem", ca, file], { stdio: "pipe" }),
      ).not.toThrow();
    },
  );
});
