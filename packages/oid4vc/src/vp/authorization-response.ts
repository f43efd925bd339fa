import { VpError } from "./errors";
import { type JweHeader, readJweHeader } from "./response-encryption";
import { type VpToken, zVpTokenResponse, zWalletErrorResponse } from "./z-authorization-response";

export type ParsedAuthorizationResponse =
  | { kind: "vp_token"; state: string | undefined; vpToken: VpToken; encrypted: boolean }
  | {
      kind: "error";
      state: string | undefined;
      error: string;
      errorDescription: string | undefined;
      encrypted: boolean;
    };

/** Form fields as a framework hands them over: `URLSearchParams` or a parsed body (repeated names → arrays). */
export type FormFields = URLSearchParams | Record<string, string | readonly string[] | undefined>;

export interface ParseAuthorizationResponseOptions {
  /** Decrypts the `response` JWE of `direct_post.jwt` (e.g. look up the session by `header.kid`). */
  decrypt?: (jwe: string, header: JweHeader) => Promise<Record<string, unknown>>;
  /**
   * The response mode the request asked for. With `direct_post.jwt`, an unencrypted `vp_token` is refused
   * (an unencrypted *error* is still accepted, §8.3.1). With `direct_post`, a `response` JWE is refused.
   */
  responseMode?: "direct_post" | "direct_post.jwt";
}

const MAX_FIELD_LENGTH = 4 * 1024 * 1024;

function field(form: FormFields, name: string): string | undefined {
  let values: readonly string[];
  if (form instanceof URLSearchParams) values = form.getAll(name);
  else {
    const v = form[name];
    values = v === undefined ? [] : typeof v === "string" ? [v] : v;
  }
  if (values.length > 1) throw new VpError("invalid_request", `parameter ${name} is repeated`);
  const value = values[0];
  if (value !== undefined && value.length > MAX_FIELD_LENGTH) {
    throw new VpError("invalid_request", `parameter ${name} is too large`);
  }
  return value;
}

function describe(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** The parameters of an authorization response (decrypted or not) as a parsed response; malformed → `VpError`. */
export function authorizationResponseFromParameters(
  params: Record<string, unknown>,
  encrypted: boolean,
): ParsedAuthorizationResponse {
  if (params.error !== undefined) {
    const parsed = zWalletErrorResponse.safeParse(params);
    if (!parsed.success) {
      throw new VpError("invalid_request", `malformed error response: ${describe(parsed.error.issues)}`);
    }
    return {
      kind: "error",
      state: parsed.data.state,
      error: parsed.data.error,
      errorDescription: parsed.data.error_description,
      encrypted,
    };
  }
  if (params.vp_token === undefined) throw new VpError("invalid_request", "vp_token is missing");
  const parsed = zVpTokenResponse.safeParse(params);
  if (!parsed.success)
    throw new VpError("invalid_request", `malformed vp_token: ${describe(parsed.error.issues)}`);
  return { kind: "vp_token", state: parsed.data.state, vpToken: parsed.data.vp_token, encrypted };
}

function parseJsonParam(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new VpError("invalid_request", `${name} is not valid JSON`);
  }
}

/**
 * Parses what a wallet posts to the response URI (OpenID4VP §8.2, §8.3.1, §8.5):
 * - `direct_post`: `vp_token` (JSON object keyed by DCQL credential query id, arrays of presentations) and `state`;
 * - `direct_post.jwt`: `response` (JWE, decrypted by `options.decrypt`) holding the same parameters;
 * - error responses: `error`, `error_description`, `state` (encrypted or not).
 * Malformed input throws `VpError` (`invalid_request`).
 */
export async function parseAuthorizationResponse(
  form: FormFields,
  options: ParseAuthorizationResponseOptions = {},
): Promise<ParsedAuthorizationResponse> {
  const response = field(form, "response");
  if (response !== undefined) {
    if (options.responseMode === "direct_post") {
      throw new VpError("invalid_request", "an encrypted response was not requested");
    }
    if (!options.decrypt) throw new VpError("invalid_request", "encrypted responses are not accepted here");
    const header = readJweHeader(response);
    const payload = await options.decrypt(response, header);
    let vpToken = payload.vp_token;
    // Some wallets JSON-encode vp_token inside the JWE as they would in a form; accept both.
    if (typeof vpToken === "string") vpToken = parseJsonParam("vp_token", vpToken);
    const outerState = field(form, "state");
    const parsed = authorizationResponseFromParameters(
      vpToken === undefined ? payload : { ...payload, vp_token: vpToken },
      true,
    );
    if (parsed.state === undefined && outerState !== undefined) parsed.state = outerState;
    else if (outerState !== undefined && outerState !== parsed.state) {
      throw new VpError("invalid_request", "state outside the JWE differs from the encrypted state");
    }
    return parsed;
  }

  const error = field(form, "error");
  if (error !== undefined) {
    return authorizationResponseFromParameters(
      { error, error_description: field(form, "error_description"), state: field(form, "state") },
      false,
    );
  }
  const vpTokenField = field(form, "vp_token");
  if (vpTokenField === undefined) throw new VpError("invalid_request", "vp_token or response is missing");
  if (options.responseMode === "direct_post.jwt") {
    throw new VpError("invalid_request", "the response must be encrypted (direct_post.jwt)");
  }
  return authorizationResponseFromParameters(
    { vp_token: parseJsonParam("vp_token", vpTokenField), state: field(form, "state") },
    false,
  );
}
