import { expect, type Page, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * Editing in the console (issue #25): an organisation (Organisations_Update), a webhook subscription
 * (Webhooks_Update) and a verification policy (a new version, VerificationPolicies_CreateVersion), each
 * seen changed afterwards; and a policy that asks for no claims is refused with a message that says so.
 * What is edited is made through the Management API first.
 */
test.describe.configure({ mode: "serial" });

const suffix = unique("edit");
const orgReference = `edit-org-${suffix}`;
const policyIdentifier = `edit-policy-${suffix}`;
let credentialType = "";
let configurationLabel = "";

let page: Page;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let otherReceiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

test.beforeAll(async ({ browser }) => {
  [receiver, otherReceiver] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  await cred().post("/management/organisations", {
    body: { reference: orgReference, displayName: "Edit Bank", country: "NL" },
  });
  const { data: issuer } = await cred().post("/management/issuers", {
    body: { organisationReference: orgReference, displayName: `Edit issuer ${suffix}` },
  });
  const { data: configuration } = await cred().post("/management/credential-configurations", {
    body: {
      identifier: `edit-card-${suffix}`,
      displayName: "Edit card",
      issuerId: issuer.id,
      schemaId: "edit-card-v1",
      claims: [
        { path: ["given_name"], type: "string", required: true },
        { path: ["family_name"], type: "string" },
      ],
    },
  });
  credentialType = configuration.credentialType;
  configurationLabel = `Edit card (${configuration.identifier})`;
  await cred().post("/management/verification-policies", {
    body: {
      identifier: policyIdentifier,
      displayName: "Edit check",
      credentials: [
        {
          id: "card",
          credentialTypes: [credentialType],
          trustedIssuers: [{ issuerId: issuer.id }],
          requiredClaims: [["given_name"]],
        },
      ],
    },
  });
  await cred().post("/management/webhooks", {
    body: { url: receiver.url, events: ["verification.session.verified"], description: "Edit backend" },
  });
  page = await browser.newPage();
  await signIn(page);
});
test.afterAll(async () => {
  await page?.close();
  await Promise.all([receiver?.close(), otherReceiver?.close()]);
});

async function go(name: string) {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
}

// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test("organisation: the country is picked by name in the edit form, then the edit is saved and listed", async ({}, testInfo) => {
  await go("Organisations");
  await page.getByRole("button", { name: `Edit organisation ${orgReference}` }).click();
  const form = page.getByRole("form", { name: /Edit organisation/ });
  await form.getByLabel("Display name").fill("Edit Bank Europe");
  // The same picker as the create form: names, saved as ISO 3166-1 alpha-2 codes (no code to mistype).
  const country = form.getByRole("combobox", { name: "Country (optional)" });
  await country.selectOption({ label: "Belgium" });
  await expect(country).toHaveValue("BE");
  await page.screenshot({ path: testInfo.outputPath("organisation-edit.png"), fullPage: true });
  await form.getByRole("button", { name: "Save organisation" }).click();
  await expect(form.getByText(`Organisation ${orgReference} updated.`)).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: orgReference });
  await expect(row).toContainText("Edit Bank Europe");
  await expect(row).toContainText("BE");
  await page.screenshot({ path: testInfo.outputPath("organisation-saved.png"), fullPage: true });
  const { data: organisation } = await cred().get("/management/organisations/{organisationReference}", {
    params: { path: { organisationReference: orgReference } },
  });
  expect(organisation).toMatchObject({
    displayName: "Edit Bank Europe",
    country: "BE",
  });
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test("webhook: URL, description and events are changed and listed; the secret stays", async ({}, testInfo) => {
  await go("Webhooks");
  await page.getByRole("button", { name: `Edit webhook ${receiver.url}` }).click();
  const form = page.getByRole("form", { name: "Edit webhook" });
  await form.getByLabel("Endpoint URL (https)").fill(otherReceiver.url);
  await form.getByLabel("Description (optional)").fill("Edit backend v2");
  await form.getByLabel("verification.session.rejected").check();
  await form.getByRole("button", { name: "Save webhook" }).click();
  await expect(form.getByText(`Webhook ${otherReceiver.url} updated.`)).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: otherReceiver.url });
  await expect(row).toContainText("Edit backend v2");
  await expect(row).toContainText("verification.session.rejected");
  await expect(page.getByRole("row").filter({ hasText: receiver.url })).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("webhook-saved.png"), fullPage: true });
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test("policy: a new version with other claims becomes active; one asking for no claims is refused", async ({}, testInfo) => {
  await go("Verification policies");
  await page.getByRole("button", { name: `Change ${policyIdentifier} (new version)` }).click();
  const form = page.getByRole("form", { name: "Create version 2" });
  const rules = form.getByLabel(/Rules \(JSON\)/);
  const current = JSON.parse(await rules.inputValue());
  expect(current.credentials[0].requiredClaims).toEqual([["given_name"]]);

  // No claims at all: the shared contract refuses it before anything is sent.
  await rules.fill(
    JSON.stringify({ ...current, credentials: [{ ...current.credentials[0], requiredClaims: [] }] }, null, 2),
  );
  await form.getByRole("button", { name: "Create version 2" }).click();
  await expect(form.getByRole("alert")).toContainText("The policy asks for no claims");
  await page.screenshot({ path: testInfo.outputPath("policy-version-no-claims.png"), fullPage: true });

  await form.getByLabel("Display name").fill("Edit check v2");
  await form.getByLabel("Reason for the change (optional)").fill("Asks for the family name");
  await rules.fill(
    JSON.stringify(
      { ...current, credentials: [{ ...current.credentials[0], requiredClaims: [["family_name"]] }] },
      null,
      2,
    ),
  );
  await form.getByRole("button", { name: "Create version 2" }).click();
  await expect(page.getByText("Version 2 is now active.")).toBeVisible();
  await expect(page.getByTestId("policy-version-2")).toContainText("active");
  await expect(page.getByTestId("policy-version-1")).toContainText("superseded");
  await expect(page.getByTestId(`policy-${policyIdentifier}`)).toContainText("Edit check v2");
  await page.screenshot({ path: testInfo.outputPath("policy-version-2.png"), fullPage: true });
  const { data: stored } = await cred().get("/management/verification-policies/{policyIdentifier}", {
    params: { path: { policyIdentifier } },
  });
  expect(stored).toMatchObject({ activeVersion: 2, displayName: "Edit check v2" });
  expect(stored.rules.credentials[0]?.requiredClaims).toEqual([["family_name"]]);

  // Rolling back to version 1.
  await page.getByRole("button", { name: "Activate version 1" }).click();
  await expect(page.getByText("Version 1 is now active.")).toBeVisible();
  await expect(page.getByTestId(`policy-${policyIdentifier}`)).toContainText("Edit check");
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test("creating a policy that asks for no claims shows the server's refusal", async ({}, testInfo) => {
  await go("Verification policies");
  const form = page.getByRole("form", { name: "Create a verification policy" });
  await form.getByLabel("Identifier").fill(`${policyIdentifier}-empty`);
  await form.getByLabel("Display name").fill("Asks for nothing");
  await form.getByLabel("Credential").selectOption({ label: configurationLabel });
  await form.getByRole("button", { name: "Create policy" }).click();
  const alert = form.getByRole("alert");
  await expect(alert).toContainText("Could not create the policy");
  await expect(alert).toContainText("The policy asks for no claims");
  await page.screenshot({ path: testInfo.outputPath("policy-no-claims.png"), fullPage: true });
  await expect(page.getByTestId(`policy-${policyIdentifier}-empty`)).toHaveCount(0);
});
