import { expect, test } from "@playwright/test";
import { signIn, unique } from "../support/env";

/**
 * The Tenants page (platform operators, docs/api/tenants.md): the bootstrap admin creates a tenant with
 * its first admin, whose one-time password signs in; that admin is no platform operator and sees no
 * Tenants page; a suspended tenant's admin is refused at sign-in with the reason, and can sign in again
 * once the tenant is reactivated.
 */
test("platform operator creates, suspends and reactivates a tenant; its admin sees no Tenants page", async ({
  page,
}, testInfo) => {
  await signIn(page);
  const nav = page.getByRole("navigation", { name: "Console" });
  const name = unique("Tenant");
  const email = `${unique("admin")}@tenant.example`;

  await nav.getByRole("link", { name: "Tenants", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Tenants" })).toBeVisible();
  const table = page.getByRole("table", { name: "Tenants" });
  await expect(table.getByRole("cell", { name: "Default tenant" })).toBeVisible();

  await page.getByLabel("Name").fill(name);
  await page.getByLabel("First admin's e-mail (optional)").fill(email);
  await page.getByRole("button", { name: "Create tenant" }).click();
  await expect(page.getByText(`Created the tenant “${name}”.`)).toBeVisible();
  const password = (await page.getByTestId("secret-value").textContent()) ?? "";
  expect(password.length).toBeGreaterThan(10);
  const row = page.getByTestId(`tenant-${name}`);
  await expect(row.locator(".badge")).toHaveText("active");
  await page.screenshot({ path: testInfo.outputPath("tenants-created.png"), fullPage: true });
  await page.getByRole("button", { name: "I have stored it" }).click();

  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: `Suspend ${name}` }).click();
  await expect(row.locator(".badge")).toHaveText("suspended");
  await expect(row.getByRole("button", { name: `Reactivate ${name}` })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("tenants-suspended.png"), fullPage: true });

  // The suspended tenant's admin is turned away at sign-in, with the reason.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(/is suspended/)).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("tenants-suspended-sign-in.png"), fullPage: true });

  // Reactivated by the operator, the admin signs in, to a console without the Tenants page.
  await signIn(page);
  await nav.getByRole("link", { name: "Tenants", exact: true }).click();
  await page
    .getByTestId(`tenant-${name}`)
    .getByRole("button", { name: `Reactivate ${name}` })
    .click();
  await expect(page.getByTestId(`tenant-${name}`).locator(".badge")).toHaveText("active");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
  await expect(page.getByText(name).first()).toBeVisible();
  await expect(nav.getByRole("link", { name: "Tenants", exact: true })).toHaveCount(0);
  await page.goto("/tenants");
  await expect(page.getByText("Only platform operators manage tenants.")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("tenants-hidden-for-tenant-admin.png"), fullPage: true });
});
