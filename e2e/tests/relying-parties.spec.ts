import { createTestAccessCa, createTestRegistrar } from "@cred/oid4vc";
import { expect, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";
import { activeIssuer } from "../support/records";

const INTERMEDIARY_ID = "VATFI-12345678";

/**
 * Relying parties an intermediary acts for (docs/api/relying-party-certificates.md, "Intermediaries"): the
 * environment gets an access certificate through the API; in the console a relying party is added, its
 * registration certificate (naming it in `sub` and the intermediary in `act.sub`) added and listed with its
 * expiry, a policy created for it from the policy form, and the verification started under that policy is
 * the party's; then the registration certificate is removed by id.
 */
test("relying parties: create one, add its registration certificate, verify for it from a policy, remove the certificate", async ({
  page,
}) => {
  const [accessCa, registrar] = await Promise.all([createTestAccessCa(), createTestRegistrar()]);
  const { data: request } = await cred().post("/management/verifier-certificate/signing-request", {
    body: {
      organisationName: "Intermediary Oy",
      organisationIdentifier: INTERMEDIARY_ID,
      country: "FI",
      dnsNames: ["verifier.example.com"],
    },
  });
  await cred().put("/management/verifier-certificate/access-certificate", {
    body: { certificateChainPem: await accessCa.issue(request.csrPem), trustAnchorPem: accessCa.rootPem },
  });
  const issuer = await activeIssuer();
  const partyName = unique("Webshop");
  const partyId = `LEIXG-${Date.now().toString(36).toUpperCase()}`;

  await signIn(page);
  await page.goto("/relying-parties");
  await page.getByLabel("Name", { exact: true }).fill(partyName);
  await page.getByLabel("Identifiers (as its registration names them)").fill(partyId);
  await page.getByLabel("Country (optional)").fill("FI");
  await page.getByRole("button", { name: "Add relying party" }).click();
  await expect(page.getByRole("heading", { level: 1, name: partyName })).toBeVisible();
  await expect(page.getByTestId("relying-party-identifiers")).toContainText(partyId);

  const registrations = page.getByTestId("relying-party-registrations");
  await expect(registrations).toContainText("No registration certificates yet.");
  const exp = Math.floor(Date.now() / 1000) + 90 * 86_400;
  const jwt = await registrar.sign({
    name: partyName,
    sub: { id: [{ type: "LEI", identifier: partyId }] },
    act: { sub: { id: INTERMEDIARY_ID, name: "Intermediary Oy" } },
    credentials: [{ format: "dc+sd-jwt", meta: issuer.credentialType, claim: [{ path: ["given_name"] }] }],
    exp,
  });
  // The tenant's own registration (no act) is refused with the API's reason.
  const own = await registrar.sign({
    name: "Not the party's",
    sub: { id: [{ type: "VAT", identifier: INTERMEDIARY_ID }] },
    credentials: [],
  });
  await registrations.getByLabel("Registration certificate (JWT, typ rc-wrp+jwt)").fill(own);
  await registrations.getByLabel("Registrar's root certificate (PEM)").fill(registrar.rootPem);
  await registrations.getByRole("button", { name: "Add registration certificate" }).click();
  await expect(registrations.getByRole("alert")).toContainText("Could not add the registration certificate");
  await registrations.getByLabel("Registration certificate (JWT, typ rc-wrp+jwt)").fill(jwt);
  await registrations.getByRole("button", { name: "Add registration certificate" }).click();
  await expect(registrations).toContainText("Registration certificate added.");
  const list = page.getByTestId("relying-party-registration-list");
  await expect(list).toContainText(String(new Date(exp * 1000).getFullYear()));
  await expect(list).toContainText("given_name");
  const certificateId = (await list.locator("code").first().textContent())!;
  expect(certificateId).toMatch(/^vreg_/);

  // The policy form names the party (its certificates: all of them, none ticked).
  const policyIdentifier = unique("rp-policy");
  await page.goto("/verification-policies");
  await page.getByLabel("Identifier").fill(policyIdentifier);
  await page.getByLabel("Display name").fill("For the webshop");
  await page.getByLabel("Credential").selectOption({ label: `Badge (${issuer.configuration})` });
  await page.getByLabel("given_name").check();
  await page.getByLabel("Verifies for").selectOption({ label: `${partyName} (${partyId})` });
  await expect(page.getByTestId("policy-relying-party")).toContainText(certificateId);
  await page.getByRole("button", { name: "Create policy" }).click();
  await expect(page.getByTestId(`policy-${policyIdentifier}`)).toContainText("active");
  const { data: stored } = await cred().get("/management/verification-policies/{policyIdentifier}", {
    params: { path: { policyIdentifier } },
  });
  expect((stored.rules as { relyingPartyId?: string }).relyingPartyId).toMatch(/^rp_/);
  const { data: session } = await cred().post("/v1.0/verifications", { body: { policy: policyIdentifier } });
  expect(session.relyingPartyId).toBe((stored.rules as { relyingPartyId?: string }).relyingPartyId);

  // The verification's page names the relying party it was for.
  await page.goto(`/verifications/${session.id}`);
  await expect(page.getByTestId("session-relying-party")).toContainText(session.relyingPartyId!);

  // Removed by id from the party's page.
  await page.goto(`/relying-parties/${session.relyingPartyId}`);
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByTestId(`registration-${certificateId}`).getByRole("button", { name: "Remove" }).click();
  await expect(page.getByTestId("relying-party-registrations")).toContainText(
    "Registration certificate removed.",
  );
  await expect(page.getByTestId(`registration-${certificateId}`)).toHaveCount(0);
});
