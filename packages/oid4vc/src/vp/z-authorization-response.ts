import { z } from "zod";
import { DCQL_ID_PATTERN } from "./z-dcql";

/** `vp_token` for DCQL (OpenID4VP §8.1): query id → non-empty array of presentations (strings for SD-JWT). */
export const zVpToken = z.record(
  z.string().regex(DCQL_ID_PATTERN, "keys must be DCQL credential query ids"),
  z
    .array(z.string().min(1, "presentations must be non-empty strings"))
    .min(1, "must hold at least one presentation"),
);

const zStateValue = z.string().min(1).max(2048);

/** Parameters of a successful response, after JSON decoding of `vp_token` (plain) or decryption (`.jwt`). */
export const zVpTokenResponse = z.looseObject({
  vp_token: zVpToken,
  state: zStateValue.optional(),
});

/** An Authorization Error Response (§8.5) posted to the response URI. */
export const zWalletErrorResponse = z.looseObject({
  error: z.string().min(1).max(256),
  error_description: z.string().max(4096).optional(),
  state: zStateValue.optional(),
});

export type VpToken = z.infer<typeof zVpToken>;
