/**
 * ETSI TS 119 602 V1.1.1 lists of trusted entities (LoTE) in JSON, signed as a compact JWS (the JAdES
 * baseline of TS 119 182-1 is a JWS with the signer in x5c): the signer certificate from x5c must be one of
 * the expected anchors, the JWS must verify with its key, and NextUpdate must not have passed.
 */
import { compactVerify, decodeProtectedHeader, importX509 } from "jose";
import { z } from "zod";
import { type CertificateInput, requireAnchoredSigner, requireCurrent, toX509 } from "./anchors";
import { TrustListError } from "./errors";
import type { TrustList, TrustListPointer, TrustServiceState, VerifiedTrustList } from "./model";

const ALGORITHMS = ["ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"];

const ZDateTime = z.string().refine((value) => !Number.isNaN(new Date(value).getTime()), "not a date-time");
const ZNames = z.array(z.object({ lang: z.string().optional(), value: z.string() }));
const ZCertificates = z.object({
  X509Certificates: z.array(z.object({ val: z.string().min(1) })).optional(),
});
const ZServiceState = z.object({
  ServiceTypeIdentifier: z.string().min(1),
  ServiceName: ZNames.optional(),
  ServiceDigitalIdentity: ZCertificates.optional(),
  ServiceStatus: z.string().min(1).optional(),
  StatusStartingTime: ZDateTime.optional(),
});
const ZLote = z.object({
  LoTE: z.object({
    ListAndSchemeInformation: z.object({
      LoTEVersionIdentifier: z.number().int().optional(),
      LoTESequenceNumber: z.number().int().optional(),
      LoTEType: z.string().optional(),
      SchemeOperatorName: ZNames.optional(),
      SchemeTerritory: z.string().optional(),
      ListIssueDateTime: ZDateTime,
      NextUpdate: ZDateTime.optional(),
      PointersToOtherLoTE: z
        .array(
          z.object({
            LoTELocation: z.string().min(1),
            ServiceDigitalIdentities: z.array(ZCertificates).optional(),
            LoTEQualifiers: z
              .array(
                z.object({
                  LoTEType: z.string().optional(),
                  SchemeTerritory: z.string().optional(),
                  MimeType: z.string().optional(),
                }),
              )
              .optional(),
          }),
        )
        .optional(),
    }),
    TrustedEntitiesList: z
      .array(
        z.object({
          TrustedEntityInformation: z.object({ TEName: ZNames }),
          TrustedEntityServices: z.array(
            z.object({
              ServiceInformation: ZServiceState,
              ServiceHistory: z.array(ZServiceState).optional(),
            }),
          ),
        }),
      )
      .optional(),
  }),
});

const nameOf = (names: z.infer<typeof ZNames> | undefined) =>
  (names?.find((name) => name.lang === "en") ?? names?.[0])?.value;

function certificatesOf(identity: z.infer<typeof ZCertificates> | undefined): Uint8Array[] {
  return (identity?.X509Certificates ?? []).map(({ val }) => new Uint8Array(toX509(val).raw));
}

/** Parses a LoTE JSON document (already verified or trusted by other means) into the shared model. */
export function parseLoteJson(json: unknown): TrustList {
  const parsed = ZLote.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TrustListError(
      "MalformedList",
      `the LoTE does not match TS 119 602: ${issue?.path.join(".")} ${issue?.message}`,
    );
  }
  const { ListAndSchemeInformation: scheme, TrustedEntitiesList: entities = [] } = parsed.data.LoTE;
  const issueDateTime = new Date(scheme.ListIssueDateTime);
  const stateOf = (state: z.infer<typeof ZServiceState>): TrustServiceState => {
    const serviceName = nameOf(state.ServiceName);
    return {
      serviceType: state.ServiceTypeIdentifier,
      ...(serviceName ? { serviceName } : {}),
      ...(state.ServiceStatus ? { status: state.ServiceStatus } : {}),
      // Profiles without a status (PID providers) have no starting time: the entry holds from the list's issue.
      statusStartingTime: state.StatusStartingTime ? new Date(state.StatusStartingTime) : issueDateTime,
      certificates: certificatesOf(state.ServiceDigitalIdentity),
    };
  };
  const pointers: TrustListPointer[] = (scheme.PointersToOtherLoTE ?? []).map((pointer) => {
    const qualifier = pointer.LoTEQualifiers?.[0];
    return {
      location: pointer.LoTELocation,
      ...(qualifier?.SchemeTerritory ? { territory: qualifier.SchemeTerritory } : {}),
      ...(qualifier?.LoTEType ? { listType: qualifier.LoTEType } : {}),
      ...(qualifier?.MimeType ? { mimeType: qualifier.MimeType } : {}),
      signerCertificates: (pointer.ServiceDigitalIdentities ?? []).flatMap(certificatesOf),
    };
  });
  const operatorName = nameOf(scheme.SchemeOperatorName);
  return {
    format: "etsi-ts-119-602-json",
    schemeInformation: {
      ...(scheme.LoTEVersionIdentifier !== undefined
        ? { versionIdentifier: scheme.LoTEVersionIdentifier }
        : {}),
      ...(scheme.LoTESequenceNumber !== undefined ? { sequenceNumber: scheme.LoTESequenceNumber } : {}),
      ...(scheme.LoTEType ? { listType: scheme.LoTEType } : {}),
      ...(operatorName ? { operatorName } : {}),
      ...(scheme.SchemeTerritory ? { territory: scheme.SchemeTerritory } : {}),
      issueDateTime,
      ...(scheme.NextUpdate ? { nextUpdate: new Date(scheme.NextUpdate) } : {}),
      pointers,
    },
    providers: entities.map((entity) => ({
      name: nameOf(entity.TrustedEntityInformation.TEName) ?? "",
      services: entity.TrustedEntityServices.map((service) => ({
        ...stateOf(service.ServiceInformation),
        history: (service.ServiceHistory ?? []).map(stateOf),
      })),
    })),
  };
}

/** Verifies a LoTE compact JWS against the expected signer anchors and returns the parsed list. */
export async function verifyLoteJws(
  jws: string,
  options: { anchors: readonly CertificateInput[]; at?: Date },
): Promise<VerifiedTrustList> {
  const at = options.at ?? new Date();
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws.trim());
  } catch {
    throw new TrustListError("MalformedList", "the LoTE is not a compact JWS");
  }
  const alg = header.alg;
  if (!alg || !ALGORITHMS.includes(alg))
    throw new TrustListError("UnsupportedAlgorithm", `JWS alg ${alg ?? "(none)"} is not accepted`);
  const leaf = header.x5c?.[0];
  if (!leaf) throw new TrustListError("UnknownSigner", "the JWS header carries no x5c");
  const signer = toX509(leaf);
  requireAnchoredSigner(signer, options.anchors, at);
  let payload: Uint8Array;
  try {
    const key = await importX509(signer.toString(), alg);
    ({ payload } = await compactVerify(jws.trim(), key, { algorithms: ALGORITHMS }));
  } catch (error) {
    throw new TrustListError("BadSignature", `the JWS does not verify (${(error as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    throw new TrustListError("MalformedList", "the JWS payload is not JSON");
  }
  const list = parseLoteJson(json);
  requireCurrent(list.schemeInformation.nextUpdate, at);
  return { ...list, signerCertificate: new Uint8Array(signer.raw) };
}
