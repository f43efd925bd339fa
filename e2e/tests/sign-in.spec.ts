import { expect, test } from "@playwright/test";
import { bootstrapCredentials, signIn } from "../support/env";

test("a wrong password shows the error with its request id", async ({ page }) => {
  await page.goto("/");
  await page.getByLabel("Email address").fill(bootstrapCredentials().consoleEmail);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Sign-in failed" });
  await expect(alert).toContainText("The email address or password is not correct.");
  await expect(alert.getByTestId("request-id")).toHaveText(/^[0-9a-f-]{36}$/);
});

test("wrong passwords from one address make it wait, saying how long, while the admin signs in elsewhere", async ({
  browser,
  page,
}) => {
  // Another browser address (the console appends the connection's own, which the API trusts on loopback).
  const attacker = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "198.51.100.77" } });
  const guessing = await attacker.newPage();
  await guessing.goto("/");
  await guessing.getByLabel("Email address").fill(bootstrapCredentials().consoleEmail);
  const alert = guessing.getByRole("alert").filter({ hasText: "Sign-in failed" });
  // Five failures are free; the fifth says the address must now wait (the button is back between tries).
  for (let i = 1; i <= 5; i++) {
    await guessing.getByLabel("Password").fill(`wrong password ${i}`);
    await guessing.getByRole("button", { name: "Sign in" }).click();
    await expect(guessing.getByRole("button", { name: "Sign in" })).toBeEnabled();
    await expect(alert).toContainText("The email address or password is not correct.");
  }
  await expect(alert).toContainText("the next attempt from your address must wait 30 seconds");
  await guessing.getByLabel("Password").fill(bootstrapCredentials().consolePassword);
  await guessing.getByRole("button", { name: "Sign in" }).click();
  await expect(alert).toContainText(
    /Too many failed sign-ins from your address\. Try again in \d+ seconds\./,
  );
  await attacker.close();

  await signIn(page);
});

test("the bootstrap admin signs in, sees the dashboard, switches environment and signs out", async ({
  page,
}) => {
  await signIn(page);
  await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
  await expect(
    page.getByRole("img", { name: /Issued, verified, rejected and revoked per day/ }),
  ).toBeVisible();
  const environment = page.getByLabel("Environment");
  await environment.selectOption("production");
  await expect(page.getByText(/· production/)).toBeVisible();
  await environment.selectOption("sandbox");
  await expect(page.getByText(/· sandbox/)).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
});

test("a session that ends while the console is open goes back to sign-in and says why", async ({
  page,
  context,
}) => {
  await signIn(page);
  await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
  await context.clearCookies();
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Issuers", exact: true })
    .click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Your session has ended" })).toBeVisible();
});
