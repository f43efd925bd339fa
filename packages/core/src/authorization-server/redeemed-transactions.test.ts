import { describe, expect, it } from "vitest";
import { Caches } from "../shared/caches";
import {
  type IssuanceTransactionRecord,
  type RedeemedTransaction,
  redeemedTransactions,
  takeRedeemedTransaction,
} from "./redeemed-transactions";

const NOW = Date.parse("2026-11-27T10:00:00Z");
const row = (id: string) => ({ id, issuerId: "iss_a" }) as IssuanceTransactionRecord;
const entry = (id: string, tokenExpiresAt = NOW + 60_000): RedeemedTransaction => ({
  row: row(id),
  tokenExpiresAt,
  dpopJkt: null,
});

describe("redeemed transactions", () => {
  it("hands a remembered row out once, with the key its token is bound to", () => {
    const caches = new Caches();
    caches.of(redeemedTransactions).set("token-a", { ...entry("itx_a"), dpopJkt: "jkt" });
    expect(takeRedeemedTransaction(caches, "token-a", NOW)).toEqual({ row: row("itx_a"), dpopJkt: "jkt" });
    expect(takeRedeemedTransaction(caches, "token-a", NOW)).toBeNull();
  });

  it("does not hand out a row whose token has expired", () => {
    const caches = new Caches();
    caches.of(redeemedTransactions).set("token-a", entry("itx_a", NOW));
    expect(takeRedeemedTransaction(caches, "token-a", NOW)).toBeNull();
  });

  it("keeps at most 5 000 rows, dropping the oldest, and each server its own", () => {
    const caches = new Caches();
    for (let i = 0; i <= 5_000; i++) caches.of(redeemedTransactions).set(`token-${i}`, entry(`itx_${i}`));
    expect(takeRedeemedTransaction(caches, "token-0", NOW)).toBeNull();
    expect(takeRedeemedTransaction(caches, "token-1", NOW)?.row.id).toBe("itx_1");
    expect(takeRedeemedTransaction(new Caches(), "token-2", NOW)).toBeNull();
  });
});
