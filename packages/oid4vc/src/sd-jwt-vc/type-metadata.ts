/** One claim of a type, as an issuer describes it (SD-JWT VC §7.8 "Claim Metadata"). */
export interface TypeMetadataClaim {
  path: (string | number | null)[];
  /** Labels per locale (RFC 5646 tags). */
  labels?: { locale: string; label: string; description?: string }[];
  /** Whether the issuer always includes the claim. */
  mandatory: boolean;
  /** Whether the issuer makes the claim selectively disclosable: `always` or `never`, never the vague `allowed`. */
  selectivelyDisclosable: boolean;
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
    sd: "always" | "never";
  }[];
}

/**
 * The Type Metadata of a type the issuer defines (SD-JWT VC §7): `vct`, the developer-facing `name` and
 * `description`, and per claim its labels, whether it is mandatory and whether it is selectively
 * disclosable (`always` / `never`, as the specification recommends over `allowed`).
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
      sd: claim.selectivelyDisclosable ? "always" : "never",
    })),
  };
}
