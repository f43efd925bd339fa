import { describe, expect, it } from "vitest";
import {
  authorisedByPresentation,
  decodeTransactionData,
  encodeTransactionData,
  requestedTransactionData,
  transactionDataProblem,
} from "./transaction-data";

const rules = {
  credentials: [
    { id: "pid", holderBindingRequired: true },
    { id: "card", holderBindingRequired: true },
  ],
} as unknown as Parameters<typeof encodeTransactionData>[1];

describe("transaction data", () => {
  const item = { type: "payment", credentialIds: ["pid", "card"], fields: { amount: "1.00" } };
  const encoded = encodeTransactionData([item], rules);
  const [requested] = requestedTransactionData(encoded);

  it("round-trips what the API shows", () => {
    expect(decodeTransactionData(encoded)).toEqual([item]);
  });

  it("takes an item naming several credentials from one of them, not from two", () => {
    const hashes = [requested!.hash];
    expect(transactionDataProblem([requested!], [{ queryId: "card", hashes }])).toBeNull();
    expect(transactionDataProblem([requested!], [{ queryId: "pid", hashes: [] }])?.code).toBe(
      "transaction_data_not_authorized",
    );
    expect(
      transactionDataProblem(
        [requested!],
        [
          { queryId: "pid", hashes },
          { queryId: "card", hashes },
        ],
      )?.code,
    ).toBe("transaction_data_authorized_twice");
  });

  it("refuses a hash for an item that does not name the presentation's credential", () => {
    const [onlyPid] = requestedTransactionData(
      encodeTransactionData([{ type: "payment", credentialIds: ["pid"] }], rules),
    );
    const kb = { transactionDataHashes: [onlyPid!.hash] };
    expect(authorisedByPresentation([onlyPid!], "pid", kb)).toEqual({ ok: true, hashes: [onlyPid!.hash] });
    expect(authorisedByPresentation([onlyPid!], "card", kb)).toMatchObject({
      ok: false,
      reason: { code: "transaction_data_mismatch" },
    });
  });
});
