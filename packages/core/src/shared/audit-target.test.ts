import { describe, expect, it } from "vitest";
import { auditTarget } from "./audit-trail";

describe("auditTarget", () => {
  it("names a webhook subscription the same way whether the call answered it or only named it", () => {
    const id = "wh_01jd5x6c3v8w9y0z1a2b3c4d5e";
    const answered = auditTarget("Webhooks_Update", { subscriptionId: id }, { data: { id } });
    const refused = auditTarget("Webhooks_Update", { subscriptionId: id }, undefined);
    expect(answered).toEqual({ type: "webhookSubscription", id });
    expect(refused).toEqual(answered);
    expect(auditTarget("Webhooks_Create", {}, { data: { id } })).toEqual(answered);
  });

  it("names the resource of an update by its key (organisation reference, policy identifier)", () => {
    expect(
      auditTarget("Organisations_Update", { organisationReference: "acme" }, { data: { reference: "acme" } }),
    ).toEqual({ type: "organisation", id: "acme" });
    expect(
      auditTarget(
        "VerificationPolicies_CreateVersion",
        { policyIdentifier: "over-18" },
        { data: { identifier: "over-18" } },
      ),
    ).toEqual({ type: "verificationPolicy", id: "over-18" });
  });
});
