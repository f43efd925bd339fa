import { describe, expect, it } from "vitest";
import { Caches } from "../../shared/caches";
import { createdOffers } from "./created-offers";

const offer = (n: number) => ({ credential_issuer: `https://issuer.example/${n}` }) as never;
const entry = (n: number, expiresAt = new Date(Date.now() + 60_000)) => ({
  transactionId: `itx_${n}`,
  issuerId: "iss_1",
  expiresAt,
  offer: offer(n),
});

describe("created offers (deps.caches)", () => {
  it("hands an offer out once, to its issuer, while unexpired", () => {
    const caches = new Caches();
    createdOffers.remember(caches, "h1", entry(1));
    expect(createdOffers.take(caches, "h1", "iss_1")).toEqual(offer(1));
    expect(createdOffers.take(caches, "h1", "iss_1")).toBeNull();

    createdOffers.remember(caches, "h2", entry(2));
    expect(createdOffers.take(caches, "h2", "iss_other")).toBeNull();
    expect(createdOffers.take(caches, "h2", "iss_1")).toBeNull(); // taken by the wrong issuer's fetch

    createdOffers.remember(caches, "h3", entry(3, new Date(Date.now() - 1)));
    expect(createdOffers.take(caches, "h3", "iss_1")).toBeNull();
  });

  it("forgets a cancelled transaction's offer, and keeps each server's offers apart", () => {
    const caches = new Caches();
    createdOffers.remember(caches, "h1", entry(1));
    createdOffers.remember(caches, "h2", entry(2));
    createdOffers.forget(caches, "itx_1");
    expect(createdOffers.take(caches, "h1", "iss_1")).toBeNull();
    expect(createdOffers.take(new Caches(), "h2", "iss_1")).toBeNull();
    expect(createdOffers.take(caches, "h2", "iss_1")).toEqual(offer(2));
  });

  it("keeps at most 5 000 offers, dropping the oldest", () => {
    const caches = new Caches();
    for (let n = 0; n <= 5_000; n++) createdOffers.remember(caches, `h${n}`, entry(n));
    expect(caches.sizes()).toEqual({
      "issuance.createdOffers": 5_000,
      "issuance.createdOfferHandles": 5_000,
    });
    expect(createdOffers.take(caches, "h0", "iss_1")).toBeNull();
    expect(createdOffers.take(caches, "h5000", "iss_1")).toEqual(offer(5_000));
  });
});
