import { describe, expect, it } from "vitest";
import { incomingUrlAttributes, outgoingUrlFull } from "./span-urls";

describe("URLs in spans", () => {
  it("wallet and verifier handles in a path become :handle; other paths stay", () => {
    expect(incomingUrlAttributes("/issuers/iss_1/offers/Zk3-secret")).toEqual({
      "url.path": "/issuers/iss_1/offers/:handle",
    });
    expect(incomingUrlAttributes("/verifier/requests/h1")["url.path"]).toBe("/verifier/requests/:handle");
    expect(incomingUrlAttributes("/verifier/responses/h2")["url.path"]).toBe("/verifier/responses/:handle");
    expect(incomingUrlAttributes("/issuers/iss_1/token")["url.path"]).toBe("/issuers/iss_1/token");
  });

  it("query values are redacted, names kept", () => {
    expect(incomingUrlAttributes("/issuers/i/authorize?request_uri=urn%3Ax&client_id=w")).toEqual({
      "url.path": "/issuers/i/authorize",
      "url.query": "request_uri=REDACTED&client_id=REDACTED",
    });
    expect(outgoingUrlFull(new URL("https://u:p@hooks.example.com:8443/in?token=s3cret&x=1"))).toBe(
      "https://hooks.example.com:8443/in?token=REDACTED&x=REDACTED",
    );
    expect(outgoingUrlFull(new URL("http://127.0.0.1:9/hooks"))).toBe("http://127.0.0.1:9/hooks");
  });
});
