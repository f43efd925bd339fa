import { expect, test } from "@playwright/test";
import { bootstrapCredentials, signIn, unique } from "../support/env";

/** A local calendar day as a date input takes it (`YYYY-MM-DD`); the browser runs in this process's zone. */
const day = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;

/**
 * The Audit page (admin only): an organisation created in the console shows as an `Organisations_Create`
 * event by the signed-in staff user; the filters re-query the list; the detail shows the summary, the
 * source and the hash chain; the event is sealed ("Intact") moments after the call.
 */
test("audit page lists the console's calls, filters them and shows an event's detail", async ({
  page,
}, testInfo) => {
  await signIn(page);
  const { consoleEmail } = bootstrapCredentials();
  const reference = unique("audit");
  const nav = page.getByRole("navigation", { name: "Console" });

  await nav.getByRole("link", { name: "Organisations", exact: true }).click();
  await page.getByLabel("Reference").fill(reference);
  await page.getByLabel("Display name").fill(`Audited ${reference}`);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await expect(page.getByText(`Organisation ${reference} created.`)).toBeVisible();

  await nav.getByRole("link", { name: "Audit", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit" })).toBeVisible();
  const table = page.getByRole("table", { name: "Audit events, newest first" });
  const rows = table.locator("tbody tr");
  // Newest first: the organisation just created heads the unfiltered list.
  await expect(rows.first().getByRole("cell").nth(2)).toHaveText("Organisations_Create");
  const headers = await table.locator("thead th").allTextContents();
  expect(headers.slice(0, 7)).toEqual([
    "Time",
    "Actor",
    "Operation",
    "Target",
    "Outcome",
    "Request id",
    "Integrity",
  ]);

  // Only refused calls: the console's successful call is not among them.
  const filters = page.getByTestId("audit-filters");
  await filters.getByLabel("Operation").fill("Organisations_Create");
  await filters.getByLabel("Outcome").selectOption("refused");
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/operation=Organisations_Create/);
  await expect(page.getByText("No events match these filters.")).toBeVisible();

  // Succeeded, from today: every row is a successful Organisations_Create, ours first.
  await filters.getByLabel("Outcome").selectOption("succeeded");
  await filters.getByLabel("From (on or after)").fill(day(new Date()));
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/outcome=succeeded/);
  await expect(rows.first()).toBeVisible();
  for (const operation of await rows.locator("td:nth-child(3)").allTextContents())
    expect(operation).toBe("Organisations_Create");
  for (const outcome of await rows.locator("td:nth-child(5) .badge").allTextContents())
    expect(outcome).toBe("succeeded");

  // Sealed into the chain within moments: reload until the newest event reads "Intact".
  const event = rows.first();
  await expect(async () => {
    await page.reload();
    await expect(event.getByRole("cell").nth(6)).toHaveText("Intact", { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(event.getByRole("cell").nth(1)).toContainText(consoleEmail);
  await expect(event.getByRole("cell").nth(1)).toContainText("Staff user");
  await expect(event.getByRole("cell").nth(3)).toContainText("organisation");
  await expect(event.getByRole("cell").nth(4)).toContainText("HTTP 201");
  await expect(event.getByRole("cell").nth(5)).toHaveText(/\S+/);

  // The detail: the summary's fields and kept values, where the call came from, and the chain.
  await event.locator("summary", { hasText: "Details" }).click();
  const details = event.locator("details[open]");
  await expect(details).toBeVisible();
  const fact = (term: string) => details.locator(`dt:text-is("${term}") + dd`).first();
  await expect(fact("Fields sent")).toContainText("reference");
  await expect(fact("Fields sent")).toContainText("displayName");
  await expect(fact("Values").getByText(reference, { exact: true })).toBeVisible();
  await expect(fact("Source address")).toHaveText(/127\.0\.0\.1|::1/);
  await expect(fact("Client request id")).toBeVisible();
  await expect(fact("Hash")).toHaveText(/^[0-9a-f]{64}$/);
  await expect(fact("Previous hash")).toHaveText(/^([0-9a-f]{64}|—)$/);
  await page.screenshot({ path: testInfo.outputPath("audit-event-detail.png"), fullPage: true });

  // A range that ends yesterday holds none of today's events; "Clear filters" lists everything again.
  const yesterday = new Date();
  yesterday.setDate(yesterday.getDate() - 1);
  await filters.getByLabel("From (on or after)").fill("");
  await filters.getByLabel("To (up to and including)").fill(day(yesterday));
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByText("No events match these filters.")).toBeVisible();
  await filters.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(rows.first().getByRole("cell").nth(2)).toHaveText("Organisations_Create");
});
