import { z } from "zod";

/**
 * An organisation's reference, in a file of its own: issuers name their organisation by it, and the
 * issuer schemas (which the configuration pages load too) need not bring the country list along.
 */
export const zOrganisationReference = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, "Use 1–64 lower-case letters, digits and inner hyphens.")
  .meta({
    description: "Caller-chosen slug, unique per tenant and environment; the path key.",
    example: "acme-bank",
  });
