import { X509Certificate } from "node:crypto";
import { compactVerify, decodeJwt, decodeProtectedHeader } from "jose";
import { validateCertificatePath } from "../x509/validate-certificate-path";
import type { DcqlQuery } from "./z-dcql";

/**
 * Relying-party registration certificates (WRPRC, ETSI TS 119 475 V1.1.1, JWT form): what a registrar
 * attests a relying party is registered to ask for. Header `typ: rc-wrp+jwt` with `x5c`; payload `sub`
 * (the relying party: a string identifier, or the V1.1.1 object whose `id[].identifier` lists them),
 * `name`, optional `act.sub` (the intermediary acting for it, with its `id`), `credentials`
 * (`{ format, meta, claim: [{ path }] }`), `iat` and optional `exp`.
 */
export const REGISTRATION_CERTIFICATE_TYP = "rc-wrp+jwt";
/** The `verifier_info` format wallets expect for a registration certificate (ARF, EUDI implementations). */
export const REGISTRATION_CERTIFICATE_FORMAT = "registration_cert";

export interface RegisteredCredential {
  format: string;
  /** The type the registration names: a `vct` (dc+sd-jwt) or doctype (mso_mdoc). */
  types: string[];
  /** Registered claim paths (segments); a query path is covered when one of them is its prefix. */
  claims: string[][];
}

export interface ParsedRegistrationCertificate {
  jwt: string;
  name: string | null;
  /** The relying party's identifiers (`sub`). */
  subjectIds: string[];
  /** The intermediary's identifiers (`act.sub`), empty when the relying party acts itself. */
  intermediaryIds: string[];
  intermediaryName: string | null;
  credentials: RegisteredCredential[];
  issuedAt: Date | null;
  expiresAt: Date | null;
  registrar: string;
}

export class InvalidRegistrationCertificateError extends Error {
  override readonly name = "InvalidRegistrationCertificateError";
  constructor(readonly issues: string[]) {
    super(issues.join("; "));
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : typeof v === "string" ? [v] : [];

/** Identifiers of a `sub` (string, or V1.1.1 `{ id: [{ identifier }] }`, or `{ id: "…" }`). */
function identifiersOf(sub: unknown): string[] {
  if (typeof sub === "string") return [sub];
  if (!isObject(sub)) return [];
  const id = sub.id;
  if (typeof id === "string") return [id];
  if (Array.isArray(id))
    return id.flatMap((e) =>
      typeof e === "string" ? [e] : isObject(e) && typeof e.identifier === "string" ? [e.identifier] : [],
    );
  return [];
}

function typesOf(meta: unknown): string[] {
  if (typeof meta === "string") return [meta];
  if (!isObject(meta)) return [];
  return [...strings(meta.vct_values), ...strings(meta.doctype_value), ...strings(meta.vct)];
}

function credentialsOf(value: unknown, issues: string[]): RegisteredCredential[] {
  if (!Array.isArray(value)) {
    issues.push(
      "the registration certificate has no `credentials` array (what the relying party may request)",
    );
    return [];
  }
  return value.flatMap((c, i) => {
    if (!isObject(c) || typeof c.format !== "string") {
      issues.push(`credentials[${i}] has no format`);
      return [];
    }
    const claimList = Array.isArray(c.claim) ? c.claim : Array.isArray(c.claims) ? c.claims : [];
    const claims = claimList.flatMap((q) => {
      if (!isObject(q)) return [];
      const path = q.path;
      if (typeof path === "string") return [path.split(".").filter(Boolean)];
      if (Array.isArray(path)) return [path.map(String)];
      return [];
    });
    return [{ format: c.format, types: typesOf(c.meta), claims }];
  });
}

const pemToDer = (pem: string) => new Uint8Array(new X509Certificate(pem).raw);

/**
 * Verifies a registration certificate JWT: `typ`, an ES256/ES384/ES512 signature by the leaf of its
 * `x5c`, that chain validated (RFC 5280, pkijs) up to `trustAnchorPem` (the registrar's root), and
 * `iat`/`nbf`/`exp` against `now`. Throws `InvalidRegistrationCertificateError` with every problem.
 */
export async function parseRegistrationCertificate(input: {
  jwt: string;
  trustAnchorPem: string;
  now?: Date;
}): Promise<ParsedRegistrationCertificate> {
  const now = input.now ?? new Date();
  let header: ReturnType<typeof decodeProtectedHeader>;
  let payload: Json;
  try {
    header = decodeProtectedHeader(input.jwt);
    payload = decodeJwt(input.jwt) as Json;
  } catch {
    throw new InvalidRegistrationCertificateError(["not a compact JWS (JWT)"]);
  }
  const issues: string[] = [];
  if (header.typ !== REGISTRATION_CERTIFICATE_TYP)
    issues.push(`typ must be '${REGISTRATION_CERTIFICATE_TYP}' (ETSI TS 119 475), not '${header.typ ?? ""}'`);
  if (!header.alg || !/^ES(256|384|512)$/.test(header.alg)) issues.push("alg must be ES256, ES384 or ES512");
  const x5c = Array.isArray(header.x5c) ? header.x5c : [];
  if (x5c.length === 0) throw new InvalidRegistrationCertificateError([...issues, "the header has no x5c"]);
  let anchor: Uint8Array;
  try {
    anchor = pemToDer(input.trustAnchorPem);
  } catch {
    throw new InvalidRegistrationCertificateError([...issues, "trustAnchorPem is not a PEM certificate"]);
  }
  const chain = x5c.map((b64) => new Uint8Array(Buffer.from(b64, "base64")));
  const path = await validateCertificatePath({ chain, trustAnchor: anchor, at: now });
  if (!path.valid) issues.push(`the x5c chain does not validate to the trust anchor: ${path.message}`);
  let registrar = "";
  try {
    const leaf = new X509Certificate(Buffer.from(chain[0]!));
    registrar = leaf.subject.split("\n").join(", ");
    if (header.alg && /^ES(256|384|512)$/.test(header.alg))
      await compactVerify(input.jwt, leaf.publicKey, { algorithms: [header.alg] });
  } catch {
    issues.push("the signature does not verify with the x5c leaf key");
  }
  const seconds = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? new Date(v * 1000) : null);
  const issuedAt = seconds(payload.iat);
  const expiresAt = seconds(payload.exp);
  const notBefore = seconds(payload.nbf);
  if (issuedAt === null) issues.push("iat is missing");
  else if (issuedAt.getTime() > now.getTime() + 60_000) issues.push("iat is in the future");
  if (notBefore && notBefore.getTime() > now.getTime() + 60_000)
    issues.push("the certificate is not yet valid (nbf)");
  if (expiresAt && expiresAt.getTime() <= now.getTime()) issues.push("the certificate has expired (exp)");
  const subjectIds = identifiersOf(payload.sub);
  if (subjectIds.length === 0) issues.push("sub names no relying-party identifier");
  const act = isObject(payload.act) ? payload.act : null;
  const intermediaryIds = act ? identifiersOf(act.sub) : [];
  if (act && intermediaryIds.length === 0) issues.push("act.sub names no intermediary identifier");
  const credentials = credentialsOf(payload.credentials, issues);
  if (issues.length) throw new InvalidRegistrationCertificateError(issues);
  const actSub = act && isObject(act.sub) ? act.sub : null;
  return {
    jwt: input.jwt,
    name: typeof payload.name === "string" ? payload.name : null,
    subjectIds,
    intermediaryIds,
    intermediaryName: actSub && typeof actSub.name === "string" ? actSub.name : null,
    credentials,
    issuedAt,
    expiresAt,
    registrar,
  };
}

/** One DCQL request beyond the registration: a credential type or a claim path not registered. */
export interface RegistrationExcess {
  credentialId: string;
  /** `null` for the credential type itself, else the claim path. */
  path: (string | number | null)[] | null;
  message: string;
}

function covers(registered: string[], path: (string | number | null)[]): boolean {
  if (registered.length === 0 || registered.length > path.length) return false;
  return registered.every((segment, i) => path[i] !== null && String(path[i]) === segment);
}

function typesOfQuery(credential: DcqlQuery["credentials"][number]): string[] {
  const meta = (credential.meta ?? {}) as Json;
  return [...strings(meta.vct_values), ...strings(meta.doctype_value)];
}

/**
 * What a DCQL query asks beyond a registration: every credential query needs a registered credential
 * of its format for each of its types, and each claim path it names must be covered by a registered
 * path of that credential (equal, or a registered parent such as `address` for `address.street`). A
 * registered credential with no claims registers the type only, not any claim.
 */
export function registrationExcesses(
  registration: Pick<ParsedRegistrationCertificate, "credentials">,
  query: DcqlQuery,
): RegistrationExcess[] {
  const excesses: RegistrationExcess[] = [];
  for (const credential of query.credentials) {
    const types = typesOfQuery(credential);
    const candidates = registration.credentials.filter(
      (r) => r.format === credential.format && types.every((t) => r.types.includes(t)),
    );
    if (candidates.length === 0) {
      excesses.push({
        credentialId: credential.id,
        path: null,
        message: `The registration certificate registers no ${credential.format} credential of type ${types.join(", ") || "(any)"}.`,
      });
      continue;
    }
    for (const claim of credential.claims ?? []) {
      if (!candidates.some((r) => r.claims.some((p) => covers(p, claim.path))))
        excesses.push({
          credentialId: credential.id,
          path: claim.path,
          message: `The registration certificate does not register the claim ${JSON.stringify(claim.path)} of ${types.join(", ")}.`,
        });
    }
  }
  return excesses;
}
