import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrustListError, type TrustListErrorCode } from "./errors";
import { SERVICE_STATUS, SERVICE_TYPE } from "./model";
import { findTrustAnchors, resolveListOfTrustedLists } from "./resolve";
import {
  buildTrustedListXml,
  createTestSigner,
  signTrustedListXml,
  type TestSigner,
} from "./test-trusted-lists";
import { parseTrustedListXml, verifyTrustedListXml } from "./trusted-list-xml";

const DAY = 86_400_000;
const XMLSEC1 = ["/usr/bin/xmlsec1", "/usr/local/bin/xmlsec1"].find((path) => existsSync(path));
const workDir = mkdtempSync(join(tmpdir(), "trust-lists-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Debian's xmlsec1 on the signed file, trusting only `signer`: true when it reports OK. */
function xmlsec1Verifies(xml: string, signer: TestSigner, idAttribute = false): boolean {
  const file = join(workDir, `list-${Math.random().toString(36).slice(2)}.xml`);
  const ca = join(workDir, `signer-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, xml);
  writeFileSync(ca, signer.certificatePem);
  const args = [
    "--verify",
    "--trusted-pem",
    ca,
    ...(idAttribute ? ["--id-attr:Id", "http://uri.etsi.org/02231/v2#:TrustServiceStatusList"] : []),
    file,
  ];
  try {
    execFileSync(XMLSEC1 as string, args, { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

function refusal(run: () => unknown): TrustListErrorCode | "accepted" {
  try {
    run();
    return "accepted";
  } catch (error) {
    if (error instanceof TrustListError) return error.code;
    throw error;
  }
}

let nationalSigner: TestSigner;
let lotlSigner: TestSigner;
let otherSigner: TestSigner;
let caCertificate: TestSigner;
let withdrawnCa: TestSigner;

beforeAll(async () => {
  [nationalSigner, lotlSigner, otherSigner, caCertificate, withdrawnCa] = await Promise.all([
    createTestSigner("CN=Test TSL signer DE"),
    createTestSigner("CN=Test LoTL signer EU"),
    createTestSigner("CN=Someone else"),
    createTestSigner("CN=Test PID provider CA"),
    createTestSigner("CN=Test withdrawn CA"),
  ]);
}, 60_000);

function nationalList(overrides: Parameters<typeof buildTrustedListXml>[0] = { territory: "DE" }) {
  return buildTrustedListXml({
    providers: [
      {
        name: "Test TSP",
        services: [
          {
            type: SERVICE_TYPE.caQc,
            status: SERVICE_STATUS.granted,
            statusStartingTime: new Date(Date.now() - 10 * DAY),
            certificatesBase64: [caCertificate.certificateBase64],
            name: "Granted CA",
          },
          {
            type: SERVICE_TYPE.caQc,
            status: SERVICE_STATUS.withdrawn,
            statusStartingTime: new Date(Date.now() - 2 * DAY),
            certificatesBase64: [withdrawnCa.certificateBase64],
            name: "Withdrawn CA",
            history: [
              {
                type: SERVICE_TYPE.caQc,
                status: SERVICE_STATUS.granted,
                statusStartingTime: new Date(Date.now() - 100 * DAY),
                certificatesBase64: [withdrawnCa.certificateBase64],
                name: "Withdrawn CA",
              },
            ],
          },
        ],
      },
    ],
    ...overrides,
  });
}

describe("TS 119 612 trusted list: signed by our test signer, verified by us and by xmlsec1", () => {
  it("parses scheme information, providers, services, certificates and history from a verified list", () => {
    const signed = signTrustedListXml(nationalList({ territory: "DE", sequenceNumber: 42 }), nationalSigner);
    const list = verifyTrustedListXml(signed, { anchors: [nationalSigner.certificatePem] });
    expect(list.format).toBe("etsi-ts-119-612-xml");
    expect(list.schemeInformation).toMatchObject({
      territory: "DE",
      sequenceNumber: 42,
      versionIdentifier: 6,
    });
    expect(list.schemeInformation.nextUpdate?.getTime()).toBeGreaterThan(Date.now());
    expect(list.providers[0]?.name).toBe("Test TSP");
    const [granted, withdrawn] = list.providers[0]?.services ?? [];
    expect(granted).toMatchObject({
      serviceType: SERVICE_TYPE.caQc,
      status: SERVICE_STATUS.granted,
      serviceName: "Granted CA",
    });
    expect(Buffer.from(granted?.certificates[0] ?? []).toString("base64")).toBe(
      caCertificate.certificateBase64,
    );
    expect(withdrawn?.history[0]?.status).toBe(SERVICE_STATUS.granted);
    expect(Buffer.from(list.signerCertificate).toString("base64")).toBe(nationalSigner.certificateBase64);
  });

  it.skipIf(!XMLSEC1)(
    `xmlsec1 (not written here) accepts our signature (URI="" and URI="#Id") and refuses a changed byte${XMLSEC1 ? "" : ` [xmlsec1 is not installed: apt-get install xmlsec1]`}`,
    () => {
      const signed = signTrustedListXml(nationalList(), nationalSigner);
      expect(xmlsec1Verifies(signed, nationalSigner)).toBe(true);
      const byId = signTrustedListXml(nationalList({ territory: "DE", id: "tsl-de" }), nationalSigner, {
        referenceByRootId: true,
      });
      expect(xmlsec1Verifies(byId, nationalSigner, true)).toBe(true);
      expect(
        verifyTrustedListXml(byId, { anchors: [nationalSigner.certificatePem] }).schemeInformation.territory,
      ).toBe("DE");
      const tampered = signed.replace("Granted CA", "Granted CB");
      expect(xmlsec1Verifies(tampered, nationalSigner)).toBe(false);
      // And xmlsec1 refuses a signer it does not trust, so the check above is not vacuous.
      expect(xmlsec1Verifies(signed, otherSigner)).toBe(false);
    },
  );

  it("refuses a list in which a byte of a service changed after signing (BadSignature)", () => {
    const signed = signTrustedListXml(nationalList(), nationalSigner);
    const tampered = signed.replace(SERVICE_STATUS.withdrawn, SERVICE_STATUS.granted);
    expect(tampered).not.toBe(signed);
    expect(refusal(() => verifyTrustedListXml(tampered, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "BadSignature",
    );
  });

  it("refuses a list signed by a certificate that is not an expected anchor (UnknownSigner)", () => {
    const signed = signTrustedListXml(nationalList(), otherSigner);
    expect(refusal(() => verifyTrustedListXml(signed, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "UnknownSigner",
    );
  });

  it("refuses a list whose KeyInfo names an anchor but whose signature was made by another key (BadSignature)", () => {
    const signed = signTrustedListXml(nationalList(), otherSigner).replace(
      otherSigner.certificateBase64,
      nationalSigner.certificateBase64,
    );
    expect(refusal(() => verifyTrustedListXml(signed, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "BadSignature",
    );
  });

  it("refuses a list whose NextUpdate has passed (ListExpired), and accepts it at a time before", () => {
    const signed = signTrustedListXml(
      nationalList({
        territory: "DE",
        issueDateTime: new Date(Date.now() - 20 * DAY),
        nextUpdate: new Date(Date.now() - DAY / 4),
      }),
      nationalSigner,
    );
    expect(refusal(() => verifyTrustedListXml(signed, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "ListExpired",
    );
    expect(
      refusal(() =>
        verifyTrustedListXml(signed, {
          anchors: [nationalSigner.certificatePem],
          at: new Date(Date.now() - DAY / 2),
        }),
      ),
    ).toBe("accepted");
  });

  it("refuses signature wrapping: a new root around the signed original (WrongReference)", () => {
    const signed = signTrustedListXml(nationalList({ territory: "DE", id: "tsl-de" }), nationalSigner, {
      referenceByRootId: true,
    });
    const original = signed.replace(/^<\?xml[^>]*>\s*/, "");
    const signatureXml = original.match(/<ds:Signature[\s\S]*<\/ds:Signature>/)?.[0] ?? "";
    const attacker = buildTrustedListXml({ territory: "XX", id: "evil" }).replace(/^<\?xml[^>]*>\s*/, "");
    // The attacker's list carries the signature as its own child and hides the signed original in an extension.
    const wrapped = attacker.replace(
      "</TrustServiceStatusList>",
      `${signatureXml}<SchemeExtensions>${original.replace(signatureXml, "")}</SchemeExtensions></TrustServiceStatusList>`,
    );
    expect(refusal(() => verifyTrustedListXml(wrapped, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "WrongReference",
    );
    // The attacker's root taking the signed original's Id: two elements carry it, which is refused.
    const sameId = attacker
      .replace('Id="evil"', 'Id="tsl-de"')
      .replace(
        "</TrustServiceStatusList>",
        `${signatureXml}<SchemeExtensions>${original.replace(signatureXml, "")}</SchemeExtensions></TrustServiceStatusList>`,
      );
    expect(refusal(() => verifyTrustedListXml(sameId, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "WrongReference",
    );
    // Moving the signature into the hidden original is refused too: it is no longer a child of the root.
    const moved = attacker.replace(
      "</TrustServiceStatusList>",
      `<SchemeExtensions>${original}</SchemeExtensions></TrustServiceStatusList>`,
    );
    expect(refusal(() => verifyTrustedListXml(moved, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "WrongReference",
    );
  });

  it("refuses an unsigned list (BadSignature), a list with two signatures (WrongReference) and broken XML (MalformedList)", () => {
    const unsigned = nationalList();
    expect(refusal(() => verifyTrustedListXml(unsigned, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "BadSignature",
    );
    const signed = signTrustedListXml(nationalList(), nationalSigner);
    const signatureXml = signed.match(/<ds:Signature[\s\S]*<\/ds:Signature>/)?.[0] ?? "";
    const twice = signed.replace("</TrustServiceStatusList>", `${signatureXml}</TrustServiceStatusList>`);
    expect(refusal(() => verifyTrustedListXml(twice, { anchors: [nationalSigner.certificatePem] }))).toBe(
      "WrongReference",
    );
    expect(
      refusal(() =>
        verifyTrustedListXml("<TrustServiceStatusList", { anchors: [nationalSigner.certificatePem] }),
      ),
    ).toBe("MalformedList");
    expect(refusal(() => parseTrustedListXml('<?xml version="1.0"?><Other xmlns="urn:x"/>'))).toBe(
      "MalformedList",
    );
  });

  it("accepts the signer by its public key when the anchor is a re-issued certificate for the same key", async () => {
    const signed = signTrustedListXml(nationalList(), nationalSigner);
    const { x509 } = await import("../x509/peculiar-x509");
    const original = new x509.X509Certificate(nationalSigner.certificatePem);
    const reissued = await x509.X509CertificateGenerator.create({
      serialNumber: "02",
      subject: original.subject,
      issuer: otherSigner.certificatePem
        ? new x509.X509Certificate(otherSigner.certificatePem).subject
        : original.subject,
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + DAY),
      publicKey: original.publicKey,
      signingKey: otherSigner.privateKey,
      signingAlgorithm: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    });
    expect(refusal(() => verifyTrustedListXml(signed, { anchors: [reissued.toString("pem")] }))).toBe(
      "accepted",
    );
  });
});

describe("LoTL → TSL resolution and the trust-anchor query", () => {
  it("follows the LoTL's pointer, verifies the TSL with the pointer's signer, and returns only granted anchors", async () => {
    const tsl = signTrustedListXml(nationalList(), nationalSigner);
    const lotl = signTrustedListXml(
      buildTrustedListXml({
        territory: "EU",
        listType: "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists",
        pointers: [
          {
            location: "https://tl.example/de.xml",
            territory: "DE",
            signerCertificatesBase64: [nationalSigner.certificateBase64],
          },
          {
            location: "https://tl.example/fr.xml",
            territory: "FR",
            signerCertificatesBase64: [nationalSigner.certificateBase64],
          },
        ],
      }),
      lotlSigner,
    );
    const verifiedLotl = verifyTrustedListXml(lotl, { anchors: [lotlSigner.certificatePem] });
    expect(verifiedLotl.schemeInformation.pointers.map((pointer) => pointer.territory)).toEqual(["DE", "FR"]);
    expect(verifiedLotl.schemeInformation.pointers[0]?.mimeType).toBe("application/vnd.etsi.tsl+xml");
    if (XMLSEC1) expect(xmlsec1Verifies(lotl, lotlSigner)).toBe(true);

    const fetched: string[] = [];
    const resolved = await resolveListOfTrustedLists(verifiedLotl, async (location) => {
      fetched.push(location);
      // FR serves a list signed by someone its pointer does not name.
      return location.endsWith("de.xml")
        ? tsl
        : signTrustedListXml(nationalList({ territory: "FR" }), otherSigner);
    });
    expect(fetched).toEqual(["https://tl.example/de.xml", "https://tl.example/fr.xml"]);
    const [de, fr] = resolved;
    expect(de?.outcome.ok).toBe(true);
    expect(fr?.outcome.ok === false && fr.outcome.error.code).toBe("UnknownSigner");

    const lists = resolved.flatMap((entry) => (entry.outcome.ok ? [entry.outcome.list] : []));
    const now = findTrustAnchors(lists, { serviceType: SERVICE_TYPE.caQc });
    expect(now.map((anchor) => Buffer.from(anchor.certificate).toString("base64"))).toEqual([
      caCertificate.certificateBase64,
    ]);
    // Before the withdrawal, the history says the second CA was granted.
    const before = findTrustAnchors(lists, {
      serviceType: SERVICE_TYPE.caQc,
      at: new Date(Date.now() - 5 * DAY),
    });
    expect(before.map((anchor) => Buffer.from(anchor.certificate).toString("base64")).sort()).toEqual(
      [caCertificate.certificateBase64, withdrawnCa.certificateBase64].sort(),
    );
    // Asking for withdrawn services finds the withdrawn one; another service type finds nothing.
    expect(
      findTrustAnchors(lists, { serviceType: SERVICE_TYPE.caQc, statuses: [SERVICE_STATUS.withdrawn] }),
    ).toHaveLength(1);
    expect(findTrustAnchors(lists, { serviceType: SERVICE_TYPE.pidIssuance })).toEqual([]);
  });

  it("reports a TSL that fails verification against the pointer without failing the others", async () => {
    const lotl = verifyTrustedListXml(
      signTrustedListXml(
        buildTrustedListXml({
          territory: "EU",
          pointers: [
            {
              location: "https://tl.example/de.xml",
              territory: "DE",
              signerCertificatesBase64: [nationalSigner.certificateBase64],
            },
          ],
        }),
        lotlSigner,
      ),
      { anchors: [lotlSigner.certificatePem] },
    );
    const tampered = signTrustedListXml(nationalList(), nationalSigner).replace("Granted CA", "Granted CB");
    const [de] = await resolveListOfTrustedLists(lotl, async () => tampered);
    expect(de?.outcome.ok === false && de.outcome.error.code).toBe("BadSignature");
    const [failing] = await resolveListOfTrustedLists(lotl, async () => {
      throw new Error("connection refused");
    });
    expect(failing?.outcome.ok === false && failing.outcome.error.message).toContain("connection refused");
  });
});
