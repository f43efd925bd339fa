import { z } from "zod";
import {
  decodeJwtUnverified,
  type Es256SigningKey,
  signEs256Jwt,
  toEs256VerificationKey,
  typIs,
  type VerificationKey,
  verifyEs256Signature,
} from "../jose/jws";
import { type Instant, toEpochSeconds, ZNumericDate } from "../jose/time";
import type { StatusListBits } from "./status-list-bytes";
import { decodeStatusList, encodeStatusList } from "./status-list-encoding";

export const STATUS_LIST_JWT_TYP = "statuslist+jwt";
export const STATUS_LIST_MEDIA_TYPE = "application/statuslist+jwt";

export interface SignStatusListTokenInput {
  privateKey: Es256SigningKey;
  kid?: string;
  /** Certificate chain for the header (HAIP requires `x5c` on the Status List Token). */
  x5c?: string[];
  /** The list's URI: equal to `status.status_list.uri` in the credentials that point at it. */
  sub: string;
  /** Epoch seconds. */
  iat: number;
  exp?: number;
  /** Seconds a relying party may cache the token; together with `exp` it bounds revocation latency. */
  ttl?: number;
  iss?: string;
  bits: StatusListBits;
  bytes: Uint8Array;
  aggregationUri?: string;
  /** zlib level for `lst` (default: the highest, 9; see `encodeStatusList`). */
  compressionLevel?: number;
}

/** Signs a Status List Token in JWT format (§5.1): header `typ: statuslist+jwt`, claims `sub`, `iat`, `exp`, `ttl`, `status_list`. */
export async function signStatusListToken(input: SignStatusListTokenInput): Promise<string> {
  if (input.ttl !== undefined && !(input.ttl > 0)) throw new RangeError("ttl must be positive");
  const header: Record<string, unknown> & { alg: "ES256" } = { alg: "ES256", typ: STATUS_LIST_JWT_TYP };
  if (input.kid !== undefined) header.kid = input.kid;
  if (input.x5c !== undefined) header.x5c = input.x5c;
  const statusList: Record<string, unknown> = {
    bits: input.bits,
    lst: encodeStatusList(input.bytes, input.compressionLevel),
  };
  if (input.aggregationUri !== undefined) statusList.aggregation_uri = input.aggregationUri;
  const payload: Record<string, unknown> = { sub: input.sub, iat: input.iat };
  if (input.iss !== undefined) payload.iss = input.iss;
  if (input.exp !== undefined) payload.exp = input.exp;
  if (input.ttl !== undefined) payload.ttl = input.ttl;
  payload.status_list = statusList;
  return signEs256Jwt(header, payload, input.privateKey);
}

export type StatusListTokenErrorCode =
  | "invalid_format"
  | "invalid_typ"
  | "invalid_signature"
  | "sub_mismatch"
  | "expired"
  | "not_yet_valid"
  | "invalid_status_list";

export class StatusListTokenError extends Error {
  readonly code: StatusListTokenErrorCode;
  constructor(code: StatusListTokenErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StatusListTokenError";
    this.code = code;
  }
}

export const ZStatusListTokenPayload = z.looseObject({
  sub: z.string().min(1),
  iat: ZNumericDate,
  exp: ZNumericDate.optional(),
  nbf: ZNumericDate.optional(),
  ttl: z.number().positive().optional(),
  status_list: z.looseObject({
    bits: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(8)]),
    lst: z.string().min(1),
    aggregation_uri: z.string().optional(),
  }),
});
export type TStatusListTokenPayload = z.infer<typeof ZStatusListTokenPayload>;

export interface VerifiedStatusList {
  bits: StatusListBits;
  bytes: Uint8Array;
  sub: string;
  iat: number;
  exp: number | undefined;
  ttl: number | undefined;
  aggregationUri: string | undefined;
}

export interface VerifyStatusListTokenOptions {
  /** The `uri` from the credential's `status.status_list`. */
  expectedSub: string;
  now: Instant;
  clockToleranceSeconds?: number;
  /** Cap on the decompressed list size. */
  maxBytes?: number;
}

/** Verifies a Status List Token JWT (§8.3) and returns the decompressed list. Throws `StatusListTokenError`. */
export async function verifyStatusListToken(
  jwt: string,
  key: VerificationKey,
  options: VerifyStatusListTokenOptions,
): Promise<VerifiedStatusList> {
  let decoded: ReturnType<typeof decodeJwtUnverified>;
  try {
    decoded = decodeJwtUnverified(jwt);
  } catch (cause) {
    throw new StatusListTokenError("invalid_format", "status list token is not a JWT", { cause });
  }
  if (!typIs(decoded.header.typ, STATUS_LIST_JWT_TYP)) {
    throw new StatusListTokenError("invalid_typ", `typ must be ${STATUS_LIST_JWT_TYP}`);
  }
  const cryptoKey = await toEs256VerificationKey(key);
  if (decoded.header.alg !== "ES256" || !(await verifyEs256Signature(jwt, cryptoKey))) {
    throw new StatusListTokenError("invalid_signature", "status list token signature is invalid");
  }
  const parsed = ZStatusListTokenPayload.safeParse(decoded.payload);
  if (!parsed.success) {
    throw new StatusListTokenError(
      "invalid_format",
      `status list token claims are malformed: ${parsed.error.message}`,
    );
  }
  const claims = parsed.data;
  if (claims.sub !== options.expectedSub) {
    throw new StatusListTokenError(
      "sub_mismatch",
      "status list token sub does not match the credential's uri",
    );
  }
  const now = toEpochSeconds(options.now);
  const tolerance = options.clockToleranceSeconds ?? 60;
  if (claims.exp !== undefined && now - tolerance >= claims.exp) {
    throw new StatusListTokenError("expired", "status list token has expired");
  }
  if (claims.nbf !== undefined && now + tolerance < claims.nbf) {
    throw new StatusListTokenError("not_yet_valid", "status list token is not yet valid");
  }
  let bytes: Uint8Array;
  try {
    bytes = decodeStatusList(claims.status_list.lst, { maxBytes: options.maxBytes });
  } catch (cause) {
    throw new StatusListTokenError("invalid_status_list", "status list could not be decompressed", { cause });
  }
  return {
    bits: claims.status_list.bits,
    bytes,
    sub: claims.sub,
    iat: claims.iat,
    exp: claims.exp,
    ttl: claims.ttl,
    aggregationUri: claims.status_list.aggregation_uri,
  };
}
