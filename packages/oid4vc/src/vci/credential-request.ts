import { z } from "zod";
import { isPlainObject } from "../jose/jws";
import { parseResponseEncryption, type ResponseEncryption } from "./credential-encryption";
import { credentialError } from "./errors";

/** Credential Request (OpenID4VCI 1.0 §8.2), as this issuer accepts it: `jwt` (and `attestation`) proofs. */
export const ZCredentialRequest = z.union([
  z.looseObject({
    credential_configuration_id: z.string().min(1),
    credential_identifier: z.undefined().optional(),
  }),
  z.looseObject({
    credential_identifier: z.string().min(1),
    credential_configuration_id: z.undefined().optional(),
  }),
]);

/** `proofs.jwt`; built once (a zod schema costs more to build than to run). */
const ZJwtProofs = z.array(z.string().min(1)).min(1);

export type TCredentialRequest = (
  | { credential_configuration_id: string; credential_identifier?: undefined }
  | { credential_identifier: string; credential_configuration_id?: undefined }
) & {
  /** Absent when the wallet sent none; require it with `proofsRequired` for holder-bound configurations. */
  proofs?: { jwt: string[]; attestation?: undefined } | { attestation: string[]; jwt?: undefined };
  /** Present when the wallet asked for an encrypted response (`credential_response_encryption`). */
  responseEncryption?: ResponseEncryption;
};

export interface ParseCredentialRequestOptions {
  /** Known configuration ids (e.g. those the access token covers); unknown ones give `unknown_credential_configuration`. */
  isKnownConfigurationId?: (id: string) => boolean;
  /** Known credential identifiers from the token response; unknown ones give `unknown_credential_identifier`. */
  isKnownCredentialIdentifier?: (id: string) => boolean;
  /** When true, a request without `proofs` is `invalid_proof` (§8.3.1.2: "the field is missing"). */
  proofsRequired?: boolean;
  /** When true, the `attestation` proof type (Appendix F.3) is accepted besides `jwt`. */
  acceptAttestationProofs?: boolean;
  /**
   * The issuer offers encrypted responses (§8.2): whether this request came encrypted, and whether the
   * issuer requires encryption. Absent: `credential_response_encryption` is refused.
   */
  encryption?: { requestEncrypted: boolean; required: boolean };
}

/**
 * Validates a Credential Request body. Throws `OAuthError` with a §8.3.1.2 code:
 * - `invalid_credential_request`: not an object; both or neither of `credential_configuration_id`
 *   and `credential_identifier`; `proofs` not an object with exactly
 *   one proof type; an empty or non-string proof array;
 * - `invalid_proof`: proofs missing while required, or a proof type other than `jwt` (and
 *   `attestation` where accepted);
 * - `invalid_encryption_parameters`: `credential_response_encryption` where the issuer does not encrypt,
 *   in a request that was not itself encrypted, or malformed; or missing where encryption is required;
 * - `unknown_credential_configuration` / `unknown_credential_identifier`.
 * The `proofs.jwt` array length is checked against the batch size by `verifyProofs`.
 */
export function parseCredentialRequest(
  body: unknown,
  options: ParseCredentialRequestOptions = {},
): TCredentialRequest {
  if (!isPlainObject(body))
    throw credentialError("invalid_credential_request", "request body must be a JSON object");
  if (body.credential_configuration_id !== undefined && body.credential_identifier !== undefined) {
    throw credentialError(
      "invalid_credential_request",
      "credential_configuration_id and credential_identifier must not both be present",
    );
  }
  const ids = ZCredentialRequest.safeParse(body);
  if (!ids.success) {
    throw credentialError(
      "invalid_credential_request",
      "exactly one of credential_configuration_id or credential_identifier (a non-empty string) is required",
    );
  }
  const responseEncryption = responseEncryptionOf(body.credential_response_encryption, options.encryption);

  let request: TCredentialRequest;
  if (typeof body.credential_configuration_id === "string") {
    if (options.isKnownConfigurationId && !options.isKnownConfigurationId(body.credential_configuration_id)) {
      throw credentialError("unknown_credential_configuration", "unknown credential_configuration_id");
    }
    request = { credential_configuration_id: body.credential_configuration_id };
  } else {
    const id = body.credential_identifier as string;
    if (options.isKnownCredentialIdentifier && !options.isKnownCredentialIdentifier(id)) {
      throw credentialError("unknown_credential_identifier", "unknown credential_identifier");
    }
    request = { credential_identifier: id };
  }
  if (responseEncryption) request.responseEncryption = responseEncryption;

  const proofs = body.proofs;
  if (proofs === undefined) {
    if (options.proofsRequired) {
      throw credentialError(
        "invalid_proof",
        body.proof === undefined
          ? "proofs are required for this credential"
          : "proofs are required for this credential (the draft-era singular proof is not read)",
      );
    }
    return request;
  }
  if (!isPlainObject(proofs)) throw credentialError("invalid_credential_request", "proofs must be an object");
  const types = Object.keys(proofs);
  if (types.length !== 1) {
    throw credentialError("invalid_credential_request", "proofs must contain exactly one proof type");
  }
  const type = types[0];
  const accepted = type === "jwt" || (type === "attestation" && options.acceptAttestationProofs);
  if (!accepted) throw credentialError("invalid_proof", `proof type ${type} is not supported`);
  const jwts = ZJwtProofs.safeParse(proofs[type as string]);
  if (!jwts.success) {
    throw credentialError(
      "invalid_credential_request",
      `proofs.${type} must be a non-empty array of strings`,
    );
  }
  request.proofs = type === "jwt" ? { jwt: jwts.data } : { attestation: jwts.data };
  return request;
}

function responseEncryptionOf(
  value: unknown,
  encryption: ParseCredentialRequestOptions["encryption"],
): ResponseEncryption | undefined {
  if (value === undefined) {
    if (encryption?.required)
      throw credentialError(
        "invalid_encryption_parameters",
        "this issuer encrypts every credential response: send credential_response_encryption",
      );
    return undefined;
  }
  if (!encryption)
    throw credentialError("invalid_encryption_parameters", "credential response encryption is not supported");
  // §8.2: the response key must itself come encrypted, or an attacker could substitute it.
  if (!encryption.requestEncrypted)
    throw credentialError(
      "invalid_encryption_parameters",
      "credential_response_encryption must come in an encrypted credential request (credential_request_encryption)",
    );
  return parseResponseEncryption(value);
}

/**
 * Validates a Deferred Credential Request body (§9.1): `transaction_id` (a non-empty string, else
 * `invalid_credential_request`) and `credential_response_encryption` under the same rules as at the
 * credential endpoint; other members are ignored.
 */
export function parseDeferredCredentialRequest(
  body: unknown,
  options: Pick<ParseCredentialRequestOptions, "encryption"> = {},
): { transactionId: string; responseEncryption?: ResponseEncryption } {
  if (!isPlainObject(body))
    throw credentialError("invalid_credential_request", "request body must be a JSON object");
  const transactionId = body.transaction_id;
  if (typeof transactionId !== "string" || transactionId === "")
    throw credentialError("invalid_credential_request", "transaction_id (a non-empty string) is required");
  const responseEncryption = responseEncryptionOf(body.credential_response_encryption, options.encryption);
  return { transactionId, ...(responseEncryption ? { responseEncryption } : {}) };
}
