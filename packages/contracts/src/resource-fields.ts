import { z } from "zod";
import { ENVIRONMENTS } from "./scopes";

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";

/** Fields every Management resource carries: its partition and timestamps (one definition for all). */
export const zResourceFields = {
  environment: z
    .enum(ENVIRONMENTS)
    .meta({ description: "Environment the resource lives in.", example: "sandbox" }),
  createdAt: z.string().meta({ description: "Creation time (ISO 8601).", example: ISO_EXAMPLE }),
  updatedAt: z.string().meta({ description: "Last change (ISO 8601).", example: ISO_EXAMPLE }),
};
