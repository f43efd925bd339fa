import { createHash } from "node:crypto";

/** One claim of a type, as an issuer describes it (SD-JWT VC §7.8 "Claim Metadata"). */
export interface TypeMetadataClaim {
  path: (string | number | null)[];
  /** Labels per locale (RFC 5646 tags). */
  labels?: { locale: string; label: string; description?: string }[];
  /** Whether the issuer always includes the claim. */
  mandatory: boolean;
  /**
   * Whether the issuer makes the claim selectively disclosable: `always` or `never`; null (`allowed`)
   * only where credentials of the type differ in it.
   */
  selectivelyDisclosable: boolean | null;
}

/** SD-JWT VC Type Metadata document (SD-JWT VC §7.2). */
export interface TypeMetadata {
  vct: string;
  name?: string;
  description?: string;
  claims?: {
    path: (string | number | null)[];
    display?: { locale: string; label: string; description?: string }[];
    mandatory: boolean;
    sd: "always" | "never" | "allowed";
  }[];
}

/**
 * The Type Metadata of a type the issuer defines (SD-JWT VC §7): `vct`, the developer-facing `name` and
 * `description`, and per claim its labels, whether it is mandatory and whether it is selectively
 * disclosable (`always` / `never`, as the specification recommends over `allowed`, which is used only
 * where credentials of the type differ).
 */
export function buildTypeMetadata(input: {
  vct: string;
  name?: string;
  description?: string;
  claims: TypeMetadataClaim[];
}): TypeMetadata {
  return {
    vct: input.vct,
    ...(input.name ? { name: input.name } : {}),
    ...(input.description ? { description: input.description } : {}),
    claims: input.claims.map((claim) => ({
      path: [...claim.path],
      ...(claim.labels?.length ? { display: claim.labels.map((label) => ({ ...label })) } : {}),
      mandatory: claim.mandatory,
      sd:
        claim.selectivelyDisclosable === null ? "allowed" : claim.selectivelyDisclosable ? "always" : "never",
    })),
  };
}

/** What a consumer reads of a fetched Type Metadata document to follow `extends` (SD-JWT VC §7.6). */
export interface TypeMetadataReference {
  vct: string;
  extends?: string;
  extendsIntegrity?: string;
}

/** Reads `vct`, `extends` and `extends#integrity` of a fetched document; null when it is not one. */
export function parseTypeMetadataReference(document: unknown): TypeMetadataReference | null {
  if (typeof document !== "object" || document === null || Array.isArray(document)) return null;
  const record = document as Record<string, unknown>;
  if (typeof record.vct !== "string" || record.vct.length === 0) return null;
  const parent = record.extends;
  const integrity = record["extends#integrity"];
  if (parent !== undefined && (typeof parent !== "string" || parent.length === 0)) return null;
  // An integrity value that is present must be usable: empty or not a string is no document to trust.
  if (integrity !== undefined && (typeof integrity !== "string" || integrity.length === 0)) return null;
  return {
    vct: record.vct,
    ...(parent !== undefined ? { extends: parent } : {}),
    ...(integrity !== undefined ? { extendsIntegrity: integrity } : {}),
  };
}

const SRI_ALGS = { sha512: 3, sha384: 2, sha256: 1 } as const;

/** The SRI "integrity metadata" (SD-JWT VC §9) of document bytes: `sha256-<base64 digest>`. */
export function integrityOf(bytes: Uint8Array | string): string {
  return `sha256-${createHash("sha256").update(bytes).digest("base64")}`;
}

/**
 * Whether document bytes match an "integrity metadata" string (SD-JWT VC §9, W3C SRI syntax): the
 * expressions with the strongest algorithm supported decide, and any of them may match. False when no
 * expression uses an algorithm supported here.
 */
export function integrityMatches(bytes: Uint8Array | string, integrity: string): boolean {
  const expressions = integrity
    .split(/\s+/)
    .map((token) => /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})(\?.*)?$/.exec(token))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ alg: m[1] as keyof typeof SRI_ALGS, digest: m[2]! }));
  if (expressions.length === 0) return false;
  const strongest = Math.max(...expressions.map((e) => SRI_ALGS[e.alg]));
  const chosen = expressions.filter((e) => SRI_ALGS[e.alg] === strongest);
  const alg = chosen[0]!.alg;
  const actual = createHash(alg).update(bytes).digest("base64");
  return chosen.some((e) => e.digest === actual);
}
