import { expect, test } from "@playwright/test";
import { signIn, unique } from "../support/env";
import { activeIssuer, issue, policy, presentTo, startVerification } from "../support/records";

/** A local calendar day as a date input takes it (`YYYY-MM-DD`); the browser runs in this process's zone. */
const day = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;

/**
 * The Verifications page over VerificationSessions_List: sessions created through the API (pending, verified,
 * rejected, and one whose result its policy withholds) are listed newest first, the filters (in the URL)
 * narrow the list, and a session's page says each check and reason in words, with the disclosed claims
 * only where the API returns them.
 */
test("verifications page lists API sessions, filters them and explains a decided one", async ({
  page,
}, testInfo) => {
  const suffix = unique("vs");
  const trusted = await activeIssuer();
  const stranger = await activeIssuer();
  const trusting = `trusting-${suffix}`;
  const distrusting = `distrusting-${suffix}`;
  const withheld = `same-device-${suffix}`;
  await policy(trusting, trusted);
  await policy(distrusting, trusted, { trusted: stranger.issuerId });
  await policy(withheld, trusted, { sameDevice: true });
  const issued = await issue(trusted);
  const verified = await presentTo(trusting, issued);
  expect(verified.status).toBe("verified");
  const rejected = await presentTo(distrusting, issued);
  expect(rejected.status).toBe("rejected");
  const rejectionCode = rejected.result!.reasons![0]!.code;
  const hidden = await presentTo(withheld, issued);
  expect(hidden.status).toBe("verified");
  const pending = await startVerification(trusting);

  await signIn(page);
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Verifications", exact: true })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Verifications" })).toBeVisible();
  const table = page.getByRole("table", { name: "Verification sessions, newest first" });
  const rows = table.locator("tbody tr");
  const row = (id: string) => page.getByTestId(`verification-session-${id}`);
  // Newest first: the pending session started last heads the list, the others follow in reverse order.
  await expect(rows.first()).toHaveAttribute("data-testid", `verification-session-${pending.id}`);
  await expect(rows.nth(1)).toHaveAttribute("data-testid", `verification-session-${hidden.id}`);
  await expect(rows.nth(2)).toHaveAttribute("data-testid", `verification-session-${rejected.id}`);
  await expect(rows.nth(3)).toHaveAttribute("data-testid", `verification-session-${verified.id}`);
  expect((await table.locator("thead th").allTextContents()).slice(0, 5)).toEqual([
    "Created",
    "Status",
    "Policy",
    "Outcome",
    "Session",
  ]);
  await expect(row(pending.id)).toContainText("pending");
  await expect(row(pending.id)).toContainText("Waiting for the holder's wallet.");
  await expect(row(verified.id)).toContainText("Verified: 1 credential passed every check.");
  await expect(row(rejected.id)).toContainText("rejected");
  await expect(row(hidden.id)).toContainText("the result is withheld");

  // Policy filter: only the distrusting policy's one (rejected) session.
  const filters = page.getByTestId("verification-filters");
  await filters.getByLabel("Policy").selectOption(distrusting);
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`policy=${distrusting}`));
  await expect(rows).toHaveCount(1);
  await expect(row(rejected.id)).toBeVisible();

  // Status and policy: the trusting policy's verified session, not its pending one.
  await filters.getByLabel("Policy").selectOption(trusting);
  await filters.getByLabel("Status").selectOption("verified");
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/status=verified/);
  await expect(rows).toHaveCount(1);
  await expect(row(verified.id)).toBeVisible();

  // Reason code, created today: the rejected session is among them; the filters survive a reload.
  await filters.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/verifications$/);
  await filters.getByLabel("Reason code").fill(rejectionCode);
  await filters.getByLabel("Created from (on or after)").fill(day(new Date()));
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`reason=${rejectionCode}`));
  await page.reload();
  await expect(filters.getByLabel("Reason code")).toHaveValue(rejectionCode);
  await expect(row(rejected.id)).toBeVisible();
  await expect(row(verified.id)).toHaveCount(0);
  await expect(row(pending.id)).toHaveCount(0);

  // A range that ends yesterday holds none of today's sessions.
  const yesterday = new Date();
  yesterday.setDate(yesterday.getDate() - 1);
  await filters.getByLabel("Reason code").fill("");
  await filters.getByLabel("Created from (on or after)").fill("");
  await filters.getByLabel("Created to (up to and including)").fill(day(yesterday));
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByText("No sessions match these filters.")).toBeVisible();
  await filters.getByRole("button", { name: "Clear filters" }).click();
  await expect(row(pending.id)).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("verifications-list.png"), fullPage: true });

  // Keyset pages of two, newest first: "Load more" appends the next (older) page.
  await page.goto("/verifications?pageSize=2");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toHaveAttribute("data-testid", `verification-session-${pending.id}`);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(3)).toHaveAttribute("data-testid", `verification-session-${verified.id}`);

  // The verified session: the outcome, each check in words, and only the claims the policy asked for.
  await row(verified.id).getByRole("link", { name: verified.id }).click();
  await expect(page).toHaveURL(new RegExp(`/verifications/${verified.id}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Verification session" })).toBeVisible();
  await expect(page.getByTestId("session-status")).toHaveText("verified");
  await expect(page.getByTestId("session-outcome")).toHaveText(
    "Verified: the presented credentials passed every check the policy requires.",
  );
  const checks = page.getByTestId("credential-checks");
  const check = (name: string) => checks.getByRole("row", { name: new RegExp(`^${name}`) });
  await expect(check("Issuer signature")).toContainText("passed");
  await expect(check("Issuer signature")).toContainText("The issuer's signature on the credential is valid.");
  await expect(check("Holder binding")).toContainText(
    "The person presenting it proved they hold the credential's key (holder binding).",
  );
  await expect(check("Issuer trusted")).toContainText("The issuer is one the policy trusts.");
  await expect(checks).not.toContainText("issuerSignature");
  const claims = page.getByTestId("disclosed-claims");
  await expect(claims.getByRole("row", { name: /given_name/ })).toContainText("Erika");
  await expect(claims).not.toContainText("Mustermann");
  await page.screenshot({ path: testInfo.outputPath("verification-verified.png"), fullPage: true });

  // The rejected session: why, in words, with the code beside it; nothing disclosed.
  await page.goto(`/verifications/${rejected.id}`);
  await expect(page.getByTestId("session-status")).toHaveText("rejected");
  const reasons = page.getByTestId("session-reasons");
  // The issuer is not among those the policy trusts, so its key is not one the policy accepts.
  expect(rejectionCode).toBe("unknown_issuer_key");
  await expect(reasons.locator("li").first()).toContainText(
    "The credential's issuer is not trusted by the policy, or its signing key is unknown.",
  );
  await expect(reasons.locator("li").first()).toContainText(rejectionCode);
  await expect(page.getByText("No credential was accepted, so no claims were disclosed.")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("verification-rejected.png"), fullPage: true });

  // A result the API withholds (response code required): the claims are no longer available here.
  await page.goto(`/verifications/${hidden.id}`);
  await expect(page.getByTestId("session-status")).toHaveText("verified");
  await expect(page.getByTestId("result-unavailable")).toContainText("No longer available.");
  await expect(page.getByTestId("disclosed-claims")).toHaveCount(0);
  await expect(page.getByText("Erika")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("verification-withheld.png"), fullPage: true });
});
