import { beforeAll, describe, expect, it } from "vitest";
import { TrustListError, type TrustListErrorCode } from "./errors";
import { parseLoteJson, verifyLoteJws } from "./lote-jws";
import { SERVICE_STATUS, SERVICE_TYPE } from "./model";
import { findTrustAnchors } from "./resolve";
import { buildLote, createTestSigner, signLoteJws, type TestSigner } from "./test-trusted-lists";

const DAY = 86_400_000;

async function refusal(run: () => Promise<unknown>): Promise<TrustListErrorCode | "accepted"> {
  try {
    await run();
    return "accepted";
  } catch (error) {
    if (error instanceof TrustListError) return error.code;
    throw error;
  }
}

let loteSigner: TestSigner;
let otherSigner: TestSigner;
let walletProviderCa: TestSigner;
let revokedProviderCa: TestSigner;

beforeAll(async () => {
  [loteSigner, otherSigner, walletProviderCa, revokedProviderCa] = await Promise.all([
    createTestSigner("CN=Test LoTE signer", { kind: "ec" }),
    createTestSigner("CN=Someone else", { kind: "ec" }),
    createTestSigner("CN=Test wallet provider", { kind: "ec" }),
    createTestSigner("CN=Test revoked wallet provider", { kind: "ec" }),
  ]);
}, 60_000);

function walletProvidersLote(nextUpdate = new Date(Date.now() + 30 * DAY)) {
  const service = (ca: TestSigner, status: string, name: string) => ({
    type: SERVICE_TYPE.walletSolutionIssuance,
    name,
    certificatesBase64: [ca.certificateBase64],
    status,
    statusStartingTime: new Date(Date.now() - DAY),
  });
  return buildLote({
    sequenceNumber: 7,
    nextUpdate,
    entities: [
      {
        name: "Test wallet provider",
        services: [
          service(walletProviderCa, SERVICE_STATUS.granted, "Wallet unit attestations"),
          service(revokedProviderCa, SERVICE_STATUS.withdrawn, "Old wallet"),
        ],
      },
    ],
  });
}

describe("TS 119 602 list of trusted entities as a JWS", () => {
  it("verifies a LoTE signed by an expected signer and finds the granted wallet provider only", async () => {
    const jws = await signLoteJws(walletProvidersLote(), loteSigner);
    const list = await verifyLoteJws(jws, { anchors: [loteSigner.certificatePem] });
    expect(list.format).toBe("etsi-ts-119-602-json");
    expect(list.schemeInformation).toMatchObject({
      territory: "EU",
      sequenceNumber: 7,
      versionIdentifier: 1,
    });
    expect(list.providers[0]?.services.map((service) => service.status)).toEqual([
      SERVICE_STATUS.granted,
      SERVICE_STATUS.withdrawn,
    ]);
    const anchors = findTrustAnchors([list], { serviceType: SERVICE_TYPE.walletSolutionIssuance });
    expect(anchors.map((anchor) => Buffer.from(anchor.certificate).toString("base64"))).toEqual([
      walletProviderCa.certificateBase64,
    ]);
    expect(anchors[0]).toMatchObject({
      providerName: "Test wallet provider",
      serviceName: "Wallet unit attestations",
    });
  });

  it("refuses a LoTE signed by a certificate that is not an expected anchor (UnknownSigner)", async () => {
    const jws = await signLoteJws(walletProvidersLote(), otherSigner);
    expect(await refusal(() => verifyLoteJws(jws, { anchors: [loteSigner.certificatePem] }))).toBe(
      "UnknownSigner",
    );
  });

  it("refuses a LoTE whose payload changed after signing (BadSignature)", async () => {
    const jws = await signLoteJws(walletProvidersLote(), loteSigner);
    const [header, , signature] = jws.split(".");
    const changed = walletProvidersLote();
    const services = changed.LoTE.TrustedEntitiesList[0]?.TrustedEntityServices ?? [];
    if (services[1]) services[1].ServiceInformation.ServiceStatus = SERVICE_STATUS.granted;
    const forged = `${header}.${Buffer.from(JSON.stringify(changed)).toString("base64url")}.${signature}`;
    expect(await refusal(() => verifyLoteJws(forged, { anchors: [loteSigner.certificatePem] }))).toBe(
      "BadSignature",
    );
  });

  it("refuses a LoTE whose x5c names the anchor but whose signature was made by another key (BadSignature)", async () => {
    const jws = await signLoteJws(walletProvidersLote(), otherSigner);
    const [, payload, signature] = jws.split(".");
    const header = Buffer.from(
      JSON.stringify({ alg: "ES256", x5c: [loteSigner.certificateBase64] }),
    ).toString("base64url");
    expect(
      await refusal(() =>
        verifyLoteJws(`${header}.${payload}.${signature}`, { anchors: [loteSigner.certificatePem] }),
      ),
    ).toBe("BadSignature");
  });

  it("refuses an expired LoTE (ListExpired), an unsigned one (UnsupportedAlgorithm) and one that is not a LoTE (MalformedList)", async () => {
    const expired = await signLoteJws(walletProvidersLote(new Date(Date.now() - 1000)), loteSigner);
    expect(await refusal(() => verifyLoteJws(expired, { anchors: [loteSigner.certificatePem] }))).toBe(
      "ListExpired",
    );
    const none = `${Buffer.from(JSON.stringify({ alg: "none", x5c: [loteSigner.certificateBase64] })).toString("base64url")}.${Buffer.from("{}").toString("base64url")}.`;
    expect(await refusal(() => verifyLoteJws(none, { anchors: [loteSigner.certificatePem] }))).toBe(
      "UnsupportedAlgorithm",
    );
    const notLote = await signLoteJws({ hello: "world" }, loteSigner);
    expect(await refusal(() => verifyLoteJws(notLote, { anchors: [loteSigner.certificatePem] }))).toBe(
      "MalformedList",
    );
    expect(await refusal(() => verifyLoteJws("not a jws", { anchors: [loteSigner.certificatePem] }))).toBe(
      "MalformedList",
    );
  });

  it("treats a service without a status (PID provider profile) as listed from the list's issue time", () => {
    const list = parseLoteJson({
      LoTE: {
        ListAndSchemeInformation: { ListIssueDateTime: new Date(Date.now() - DAY).toISOString() },
        TrustedEntitiesList: [
          {
            TrustedEntityInformation: { TEName: [{ lang: "en", value: "PID provider" }] },
            TrustedEntityServices: [
              {
                ServiceInformation: {
                  ServiceTypeIdentifier: SERVICE_TYPE.pidIssuance,
                  ServiceDigitalIdentity: { X509Certificates: [{ val: walletProviderCa.certificateBase64 }] },
                },
              },
            ],
          },
        ],
      },
    });
    expect(findTrustAnchors([list], { serviceType: SERVICE_TYPE.pidIssuance })).toHaveLength(1);
    expect(
      findTrustAnchors([list], { serviceType: SERVICE_TYPE.pidIssuance, at: new Date(Date.now() - 2 * DAY) }),
    ).toHaveLength(0);
  });
});
