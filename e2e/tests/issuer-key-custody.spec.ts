import { expect, type Page, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";

/**
 * Key custody in the console (docs/key-custody.md): the issuer forms offer the providers Issuers_Create
 * and Issuers_Update accept (from the same zod contract) and the separate status list key. The e2e API
 * has no PKCS#11 token, so asking for one is refused with the server's reason; software keys and the
 * separate status list key are saved and read back through the API.
 */
test.describe.configure({ mode: "serial" });

const suffix = unique("custody");
const orgReference = `custody-org-${suffix}`;
let page: Page;

test.beforeAll(async ({ browser }) => {
  await cred().post("/management/organisations", {
    body: { reference: orgReference, displayName: "Custody Bank", country: "NL" },
  });
  page = await browser.newPage();
  await signIn(page);
});
test.afterAll(async () => {
  await page.close();
});

const keyCustodyField = () => page.getByRole("combobox", { name: /^Key custody/ });

async function issuerNamed(displayName: string) {
  const { data } = await cred().get("/management/issuers", { params: { query: { limit: 100 } } });
  return data.find((issuer) => issuer.displayName === displayName);
}

test("create an issuer: PKCS#11 refused without a token, software with a separate status list key saved", async () => {
  const name = `Custody issuer ${suffix}`;
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Issuers", exact: true })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Issuers" })).toBeVisible();
  const custody = keyCustodyField();
  await expect(custody.locator("option")).toHaveText(["Choose…", /^Software/, /^PKCS#11 token/]);
  await expect(custody).toHaveValue("software");
  await page.getByLabel("Organisation").selectOption(orgReference);
  await page.getByLabel("Display name").fill(name);
  await custody.selectOption("pkcs11");
  await page.getByRole("button", { name: "Create issuer" }).click();
  await expect(page.getByText("Could not create the issuer")).toBeVisible();
  await expect(page.getByText(/Key custody 'pkcs11' is not configured/)).toBeVisible();
  expect(await issuerNamed(name)).toBeUndefined();

  await custody.selectOption("software");
  await page.getByLabel(/Sign status lists with a key of their own/).check();
  await page.getByRole("button", { name: "Create issuer" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  const created = await issuerNamed(name);
  expect(created?.keyCustody.provider).toBe("software");
  expect(created?.statusListSigning.separateKey).toBe(true);

  // The details form shows both and changes the status list key back.
  await expect(keyCustodyField()).toHaveValue("software");
  const separate = page.getByLabel(/Sign status lists with a key of their own/);
  await expect(separate).toBeChecked();
  await separate.uncheck();
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Issuer details saved.")).toBeVisible();
  expect((await issuerNamed(name))?.statusListSigning).toEqual({ separateKey: false, publicJwk: null });
  await keyCustodyField().selectOption("pkcs11");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText(/Key custody 'pkcs11' is not configured/)).toBeVisible();
  expect((await issuerNamed(name))?.keyCustody.provider).toBe("software");
});
