import { TRANSACTION_DATA_RESERVED, type TTransactionData } from "@cred/contracts/verification-sessions";
import { transactionDataHash } from "@cred/oid4vc";
import { DomainError, type ErrorDetail } from "../shared/errors";
import type { TPolicyRules } from "../verification-policies";

/**
 * OpenID4VP transaction data (§5.1, §8.4; the SD-JWT VC profile of Appendix B.3.3): what a verification
 * asks the holder to authorise, sent as base64url-encoded JSON objects in `transaction_data`; the wallet
 * returns the SHA-256 of each one it authorises in `transaction_data_hashes` of the key binding JWT of a
 * credential the object names.
 */

/** The request's `transaction_data` strings, after checking each item against the policy; 400 otherwise. */
export function encodeTransactionData(items: TTransactionData[], rules: TPolicyRules): string[] {
  const credentials = new Map(rules.credentials.map((c) => [c.id, c]));
  const details: ErrorDetail[] = [];
  items.forEach((item, index) => {
    for (const id of item.credentialIds) {
      const credential = credentials.get(id);
      if (!credential) {
        details.push({
          code: "UnknownCredentialId",
          target: `transactionData[${index}].credentialIds`,
          message: `'${id}' is not a credential of the policy (${[...credentials.keys()].join(", ")}).`,
        });
      } else if (!credential.holderBindingRequired) {
        details.push({
          code: "HolderBindingRequired",
          target: `transactionData[${index}].credentialIds`,
          message: `Transaction data needs holder binding, which the policy's credential '${id}' does not require.`,
        });
      }
    }
    for (const name of Object.keys(item.fields ?? {})) {
      if ((TRANSACTION_DATA_RESERVED as readonly string[]).includes(name)) {
        details.push({
          code: "ReservedField",
          target: `transactionData[${index}].fields.${name}`,
          message: `'${name}' is set by the platform from the item's own members.`,
        });
      }
    }
  });
  if (details.length > 0) {
    throw new DomainError(
      "ValidationFailed",
      "The transaction data does not fit the policy; see details.",
      details,
    );
  }
  return items.map((item) =>
    Buffer.from(
      JSON.stringify({ ...item.fields, type: item.type, credential_ids: item.credentialIds }),
      "utf8",
    ).toString("base64url"),
  );
}

/** The items as the API shows them, from the strings sent. */
export function decodeTransactionData(encoded: string[]): TTransactionData[] {
  return encoded.map((value) => {
    const { type, credential_ids, ...fields } = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
    return { type, credentialIds: credential_ids, ...(Object.keys(fields).length ? { fields } : {}) };
  });
}

/** Why presentations do not authorise the request's transaction data as §5.1 and §8.4 ask. */
export type TransactionDataReasonCode =
  | "transaction_data_hash_alg"
  | "transaction_data_mismatch"
  | "transaction_data_not_authorized"
  | "transaction_data_authorized_twice";

interface Reason {
  code: TransactionDataReasonCode;
  message: string;
}

/** A requested item as the checks need it: its string as sent, that string's hash, the credentials it names. */
export interface RequestedTransactionData {
  hash: string;
  credentialIds: string[];
}

/** The session's `transaction_data` strings, decoded once per verification. */
export function requestedTransactionData(encoded: string[]): RequestedTransactionData[] {
  return encoded.map((value) => ({
    hash: transactionDataHash(value),
    credentialIds: decodeTransactionData([value])[0]!.credentialIds,
  }));
}

/**
 * What one presentation's key binding JWT authorises, or why it cannot be accepted: only hashes of items
 * that name its credential query, with the default `sha-256` (the request sends no
 * `transaction_data_hashes_alg`). A KB-JWT with hashes where none were asked of it is refused too.
 */
export function authorisedByPresentation(
  requested: RequestedTransactionData[],
  queryId: string,
  kb: { transactionDataHashes?: string[]; transactionDataHashesAlg?: string } | undefined,
): { ok: true; hashes: string[] } | { ok: false; reason: Reason } {
  const hashes = kb?.transactionDataHashes ?? [];
  if (hashes.length === 0) return { ok: true, hashes };
  if (kb?.transactionDataHashesAlg !== undefined && kb.transactionDataHashesAlg !== "sha-256") {
    return {
      ok: false,
      reason: { code: "transaction_data_hash_alg", message: "transaction_data_hashes_alg must be sha-256" },
    };
  }
  const expected = new Set(requested.filter((r) => r.credentialIds.includes(queryId)).map((r) => r.hash));
  if (hashes.some((hash) => !expected.has(hash))) {
    return {
      ok: false,
      reason: {
        code: "transaction_data_mismatch",
        message:
          "the key binding JWT authorises transaction data this request did not ask of this credential",
      },
    };
  }
  return { ok: true, hashes };
}

/**
 * Why the accepted presentations do not authorise the requested items as §5.1 and §8.4 ask, or null:
 * each item by exactly one presentation of a credential it names ("the Wallet MUST use only one").
 */
export function transactionDataProblem(
  requested: RequestedTransactionData[],
  accepted: { queryId: string; hashes: string[] }[],
): Reason | null {
  const coverage = requested.map(
    (item) =>
      accepted.filter((a) => item.credentialIds.includes(a.queryId) && a.hashes.includes(item.hash)).length,
  );
  const missing = coverage.flatMap((n, index) => (n === 0 ? [index] : []));
  if (missing.length > 0) {
    return {
      code: "transaction_data_not_authorized",
      message: `the holder did not authorise transaction data item${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (no transaction_data_hashes for it in a key binding JWT of a credential it names)`,
    };
  }
  const twice = coverage.flatMap((n, index) => (n > 1 ? [index] : []));
  if (twice.length > 0) {
    return {
      code: "transaction_data_authorized_twice",
      message: `transaction data item${twice.length > 1 ? "s" : ""} ${twice.join(", ")} came authorised by more than one credential; the wallet must use one`,
    };
  }
  return null;
}
