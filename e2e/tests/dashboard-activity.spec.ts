import { expect, test } from "@playwright/test";
import { signIn, unique } from "../support/env";
import { activeIssuer, activity, issue, policy, presentTo, revoke } from "../support/records";

/**
 * The dashboard's activity (Activity_Get): after issuing, verifying, rejecting and revoking through the
 * API, the counts of the range, and the issuer's and policy's rows, grow by exactly what was done; the
 * range switch (7/30/90 days) is in the URL.
 */
test("dashboard shows issued, verified, rejected and revoked counts over time", async ({
  page,
}, testInfo) => {
  const before = (await activity()).total as Record<string, number>;
  const suffix = unique("act");
  const issuer = await activeIssuer();
  const stranger = await activeIssuer();
  const trusting = `act-trusting-${suffix}`;
  const distrusting = `act-distrusting-${suffix}`;
  await policy(trusting, issuer);
  await policy(distrusting, issuer, { trusted: stranger.issuerId });
  const first = await issue(issuer);
  const second = await issue(issuer, "Max");
  expect((await presentTo(trusting, first)).status).toBe("verified");
  expect((await presentTo(distrusting, first)).status).toBe("rejected");
  await revoke(second.credentialId);

  await signIn(page);
  const section = page.getByTestId("activity");
  await expect(section.getByRole("heading", { name: "Activity over the last 30 days" })).toBeVisible();
  const total = (key: string) => section.getByTestId(`activity-total-${key}`);
  await expect(total("issued")).toHaveText(String(before.issued! + 2));
  await expect(total("verified")).toHaveText(String(before.verified! + 1));
  await expect(total("rejected")).toHaveText(String(before.rejected! + 1));
  await expect(total("revoked")).toHaveText(String(before.revoked! + 1));
  await expect(section.getByRole("img", { name: /per day, last 30 days/ })).toBeVisible();

  const issuerRow = section.getByTestId(`activity-issuer-${issuer.issuerId}`);
  await expect(issuerRow.getByRole("rowheader")).toContainText(issuer.name);
  await expect(issuerRow.getByRole("cell")).toHaveText(["2", "1"]);
  await expect(section.getByTestId(`activity-policy-${trusting}`).getByRole("cell")).toHaveText(["1", "0"]);
  await expect(section.getByTestId(`activity-policy-${distrusting}`).getByRole("cell")).toHaveText([
    "0",
    "1",
  ]);
  await page.screenshot({ path: testInfo.outputPath("dashboard-activity-30.png"), fullPage: true });

  // 7 days: the same counts (all of today), the switch kept in the URL; 90 likewise.
  await section.getByRole("link", { name: "7 days" }).click();
  await expect(page).toHaveURL(/\/dashboard\?days=7$/);
  await expect(section.getByRole("heading", { name: "Activity over the last 7 days" })).toBeVisible();
  await expect(section.getByRole("link", { name: "7 days" })).toHaveAttribute("aria-current", "true");
  await expect(total("issued")).toHaveText(String(before.issued! + 2));
  await expect(issuerRow.getByRole("cell")).toHaveText(["2", "1"]);
  await page.screenshot({ path: testInfo.outputPath("dashboard-activity-7.png"), fullPage: true });
  await section.getByRole("link", { name: "90 days" }).click();
  await expect(section.getByRole("heading", { name: "Activity over the last 90 days" })).toBeVisible();
  await expect(total("revoked")).toHaveText(String(before.revoked! + 1));
});
