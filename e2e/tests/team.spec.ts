import { type Browser, expect, type Page, test } from "@playwright/test";
import { signIn, unique } from "../support/env";

/**
 * The Team page (tenant administrators, docs/api/staff-members.md): the admin adds a member, whose
 * one-time password signs in; changes their role; signs them out everywhere (their open console goes
 * back to sign-in); resets their password (the new one signs in); removes them. The member, an
 * operator or viewer, sees no Team page.
 */

async function signInAs(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
  return page;
}

test("admin adds a member, changes their role, signs them out everywhere, resets their password and removes them", async ({
  page,
  browser,
}, testInfo) => {
  await signIn(page);
  const nav = page.getByRole("navigation", { name: "Console" });
  await nav.getByRole("link", { name: "Team", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Team" })).toBeVisible();
  const table = page.getByRole("table", { name: "Team members" });
  await expect(table.getByRole("cell", { name: /\(you\)/ })).toBeVisible();
  // The bootstrap administrator is the platform operator, and the page says so.
  const you = table.getByRole("row").filter({ has: page.getByRole("cell", { name: /\(you\)/ }) });
  await expect(you.getByRole("cell", { name: "Platform operator", exact: true })).toBeVisible();

  const email = `${unique("member")}@team.example`;
  await page.getByLabel("E-mail").fill(email);
  await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("operator");
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByText(`Added ${email} as operator.`)).toBeVisible();
  const password = (await page.getByTestId("secret-value").textContent()) ?? "";
  expect(password.length).toBeGreaterThan(10);
  const row = page.getByTestId(`member-${email}`);
  await expect(row.getByLabel(`Role of ${email}`)).toHaveValue("operator");
  await expect(row.getByRole("cell", { name: "Platform operator", exact: true })).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("team-member-added.png"), fullPage: true });
  await page.getByRole("button", { name: "I have stored it" }).click();

  await row.getByLabel(`Role of ${email}`).selectOption("viewer");
  await expect(page.getByText(`${email} is now viewer.`)).toBeVisible();

  // The member signs in with the one-time password, as a viewer: no Team page for them.
  const member = await signInAs(browser, email, password);
  const memberNav = member.getByRole("navigation", { name: "Console" });
  await expect(memberNav.getByRole("link", { name: "Team", exact: true })).toHaveCount(0);
  await member.goto("/team");
  await expect(member.getByText("Only administrators manage the team.")).toBeVisible();

  // Signed out everywhere: the member's open console is sent back to sign-in.
  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: `Sign ${email} out everywhere` }).click();
  await expect(page.getByText("Signed the member out everywhere (1 session ended).")).toBeVisible();
  await member.reload();
  await expect(member.getByRole("heading", { name: "Sign in" })).toBeVisible();

  // A reset password is shown once and signs in; the old one no longer does.
  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: `Reset the password of ${email}` }).click();
  await expect(
    page.getByText(`Reset the password of ${email} and signed them out everywhere.`),
  ).toBeVisible();
  const reset = (await page.getByTestId("secret-value").textContent()) ?? "";
  expect(reset).not.toBe(password);
  await page.screenshot({ path: testInfo.outputPath("team-password-reset.png"), fullPage: true });
  await member.getByLabel("Email address").fill(email);
  await member.getByLabel("Password").fill(password);
  await member.getByRole("button", { name: "Sign in" }).click();
  await expect(member.getByText(/not correct/)).toBeVisible();
  await member.getByLabel("Password").fill(reset);
  await member.getByRole("button", { name: "Sign in" }).click();
  // Back on the page they were signed out of.
  await expect(member.getByText("Only administrators manage the team.")).toBeVisible();

  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: `Remove ${email}` }).click();
  await expect(page.getByText(`Removed ${email} from the team.`)).toBeVisible();
  await expect(page.getByTestId(`member-${email}`)).toHaveCount(0);
  await member.reload();
  await expect(member.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("team-member-removed.png"), fullPage: true });
});
