import { expect, test } from "@playwright/test";
import { signIn, unique } from "../support/env";

/**
 * List pages read the API page by page: with `?pageSize=2` three new organisations (plus any other test's)
 * take at least two pages, reached with "Load more"; the live status says how many are shown.
 */
test("organisations list pages with Load more", async ({ page }) => {
  await signIn(page);
  const suffix = unique("page");
  const references = [1, 2, 3].map((n) => `paging-${n}-${suffix}`);

  await page.goto("/organisations?pageSize=2");
  await expect(page.getByRole("heading", { level: 1, name: "Organisations" })).toBeVisible();
  for (const reference of references) {
    await page.getByLabel("Reference").fill(reference);
    await page.getByLabel("Display name").fill(`Paging ${reference}`);
    await page.getByRole("button", { name: "Create organisation" }).click();
    await expect(page.getByText(`Organisation ${reference} created.`)).toBeVisible();
  }

  await page.reload();
  const rows = page.getByRole("table", { name: "Organisations" }).locator("tbody tr");
  const status = page.getByTestId("pager-status");
  await expect(rows).toHaveCount(2);
  await expect(status).toHaveText("Showing 2 organisations; more are available.");
  await expect(status).toHaveAttribute("aria-live", "polite");

  // Each click appends the next page (at most two rows) until the last page is in.
  const loadMore = page.getByRole("button", { name: "Load more" });
  let shown = 2;
  while (await loadMore.isVisible()) {
    await loadMore.click();
    await expect(rows).not.toHaveCount(shown);
    const now = await rows.count();
    expect(now - shown).toBeGreaterThan(0);
    expect(now - shown).toBeLessThanOrEqual(2);
    shown = now;
  }
  const total = await rows.count();
  expect(total).toBeGreaterThanOrEqual(3);
  await expect(status).toHaveText(`Showing all ${total} organisations.`);
  for (const reference of references)
    await expect(page.getByRole("cell", { name: reference, exact: true })).toBeVisible();
});
