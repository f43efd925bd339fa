import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const org = (reference: string, country: unknown) => ({
  reference,
  displayName: `Org ${reference}`,
  country,
});

describe("an organisation's country", () => {
  it("is stored as the assigned ISO 3166-1 alpha-2 code it was given", async () => {
    for (const [reference, country] of [
      ["in-niger", "NE"],
      ["in-the-netherlands", "NL"],
      ["in-kosovo", "XK"],
    ] as const) {
      const r = await call(t, "POST", "/management/organisations", {
        key: t.adminKey,
        body: org(reference, country),
      });
      expect(r.status).toBe(201);
      expect(r.body.data.country).toBe(country);
    }
  });

  it("refuses reserved and unassigned codes with 400 ValidationFailed naming the field", async () => {
    for (const country of ["ZZ", "EU", "UK", "AA", "XA"]) {
      const r = await call(t, "POST", "/management/organisations", {
        key: t.adminKey,
        body: org(`refused-${country.toLowerCase()}`, country),
      });
      expect([country, r.status, errorCode(r)]).toEqual([country, 400, "ValidationFailed"]);
      expect(r.body.error.details).toEqual([
        expect.objectContaining({
          target: "country",
          message: "Not an assigned ISO 3166-1 alpha-2 country code.",
        }),
      ]);
    }
    const listed = await call(t, "GET", "/management/organisations?limit=100", { key: t.adminKey });
    expect(listed.body.data.map((o: { reference: string }) => o.reference)).not.toContain("refused-zz");
  });

  it("refuses names and other forms of code with the message about the form", async () => {
    for (const country of ["Netherlands", "nl", "NLD", "528"]) {
      const r = await call(t, "POST", "/management/organisations", {
        key: t.adminKey,
        body: org("refused-form", country),
      });
      expect([country, r.status, errorCode(r)]).toEqual([country, 400, "ValidationFailed"]);
      expect(r.body.error.details).toEqual([
        expect.objectContaining({ target: "country", message: "Use an ISO 3166-1 alpha-2 code, e.g. NL." }),
      ]);
    }
  });
});
