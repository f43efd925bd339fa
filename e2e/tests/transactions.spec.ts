import { expect, type Page, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";
import { type ActiveIssuer, activeIssuer, createOffer, issueCredential } from "../support/issuance";

/** A local calendar day as a date input takes it (`YYYY-MM-DD`); the browser runs in this process's zone. */
const day = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;

const rowsOf = (page: Page) =>
  page.getByRole("table", { name: "Issuance transactions, newest first" }).locator("tbody tr");

/** The Transaction column's text of every row shown. */
const shownIds = async (page: Page) =>
  (await rowsOf(page).locator("td:nth-child(2)").allTextContents()).map((s) => s.trim());

/** A fact of a `<dl class="facts">` by its term. */
const fact = (page: Page, term: string) => page.locator(`dl.facts dt:text-is("${term}") + dd`).first();

/**
 * Transactions of two issuers made through the API (one completed by the test wallet, two pending, one
 * cancelled), then the Transactions page: newest first, each filter re-querying through the URL, Load more.
 */
test.describe("Transactions page", () => {
  let a: ActiveIssuer;
  let b: ActiveIssuer;
  const subject = unique("subject");
  const callback = unique("order");
  let completedId = "";
  let pendingId = "";
  let cancelledId = "";
  let otherIssuerId = "";

  test.beforeAll(async () => {
    a = await activeIssuer("tx-a");
    b = await activeIssuer("tx-b");
    completedId = (
      await issueCredential(a, { externalSubjectReference: subject, callbackReference: callback })
    ).id;
    pendingId = (await createOffer(a, { externalSubjectReference: subject })).id;
    cancelledId = (await createOffer(a)).id;
    await cred().post("/v1.0/issuance-transactions/{transactionId}/cancel", {
      params: { path: { transactionId: cancelledId } },
    });
    otherIssuerId = (await createOffer(b, { externalSubjectReference: subject })).id;
  });

  test("lists transactions newest first and filters them by each field", async ({ page }, testInfo) => {
    await signIn(page);
    await page
      .getByRole("navigation", { name: "Console" })
      .getByRole("link", { name: "Transactions", exact: true })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: "Transactions" })).toBeVisible();
    const rows = rowsOf(page);
    // Newest first: the last one created heads the unfiltered list, then the ones before it in order.
    await expect(rows.first()).toBeVisible();
    const all = await shownIds(page);
    expect(all.slice(0, 4)).toEqual([otherIssuerId, cancelledId, pendingId, completedId]);
    const headers = await page.getByRole("table").locator("thead th").allTextContents();
    expect(headers).toEqual([
      "Created",
      "Transaction",
      "Status",
      "Configuration",
      "Issuer",
      "Subject reference",
      "Callback reference",
      "Credential",
    ]);

    const filters = page.getByTestId("transaction-filters");
    const apply = () => filters.getByRole("button", { name: "Apply filters" }).click();

    // Issuer A: its three, not B's.
    await filters.getByLabel("Issuer").selectOption({ label: a.issuerName });
    await apply();
    await expect(page).toHaveURL(new RegExp(`issuerId=${a.issuerId}`));
    await expect(rows).toHaveCount(3);
    await expect.poll(() => shownIds(page)).toEqual([cancelledId, pendingId, completedId]);
    await expect(rows.first().getByRole("cell").nth(4)).toContainText(a.issuerName);

    // Status within issuer A.
    await filters.getByLabel("Status").selectOption("completed");
    await apply();
    await expect(page).toHaveURL(/status=completed/);
    await expect(rows).toHaveCount(1);
    await expect.poll(() => shownIds(page)).toEqual([completedId]);
    await expect(rows.first().getByRole("cell").nth(2)).toHaveText("completed");
    await filters.getByLabel("Status").selectOption("cancelled");
    await apply();
    await expect(rows).toHaveCount(1);
    await expect.poll(() => shownIds(page)).toEqual([cancelledId]);

    // Subject reference across issuers (status and issuer cleared): A's two and B's one.
    await filters.getByLabel("Status").selectOption("");
    await filters.getByLabel("Issuer").selectOption("");
    await filters.getByLabel("Subject reference").fill(subject);
    await apply();
    await expect(page).toHaveURL(new RegExp(`externalSubjectReference=${subject}`));
    await expect(rows).toHaveCount(3);
    await expect.poll(() => shownIds(page)).toEqual([otherIssuerId, pendingId, completedId]);

    // Callback reference: only the completed one carries it.
    await filters.getByLabel("Subject reference").fill("");
    await filters.getByLabel("Callback reference").fill(callback);
    await apply();
    await expect(rows).toHaveCount(1);
    await expect(rows.first().getByRole("cell").nth(6)).toHaveText(callback);

    // Configuration: B's only.
    await filters.getByLabel("Callback reference").fill("");
    await filters.getByLabel("Credential configuration").selectOption(b.configuration);
    await apply();
    await expect(page).toHaveURL(new RegExp(`credentialConfiguration=${b.configuration}`));
    await expect(rows).toHaveCount(1);
    await expect.poll(() => shownIds(page)).toEqual([otherIssuerId]);

    // Created today holds it; created up to yesterday holds none of today's.
    await filters.getByLabel("Created from (on or after)").fill(day(new Date()));
    await apply();
    await expect(rows).toHaveCount(1);
    const yesterday = new Date();
    yesterday.setDate(yesterday.getDate() - 1);
    await filters.getByLabel("Created from (on or after)").fill("");
    await filters.getByLabel("Created to (up to and including)").fill(day(yesterday));
    await apply();
    await expect(page.getByText("No transactions match these filters.")).toBeVisible();

    // The filters live in the URL: a reload keeps them, in the form too.
    await page.reload();
    await expect(page.getByText("No transactions match these filters.")).toBeVisible();
    await expect(filters.getByLabel("Credential configuration")).toHaveValue(b.configuration);
    await page.screenshot({ path: testInfo.outputPath("transactions-filtered.png"), fullPage: true });

    await filters.getByRole("button", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(/\/transactions$/);
    await expect(rows.first()).toBeVisible();
    expect((await shownIds(page)).slice(0, 4)).toEqual([otherIssuerId, cancelledId, pendingId, completedId]);
    await page.screenshot({ path: testInfo.outputPath("transactions.png"), fullPage: true });
  });

  test("pages through a filtered list with Load more, keeping the order", async ({ page }) => {
    await signIn(page);
    await page.goto(`/transactions?pageSize=2&issuerId=${a.issuerId}`);
    const rows = rowsOf(page);
    await expect(rows).toHaveCount(2);
    await expect(page.getByTestId("pager-status")).toHaveText("Showing 2 transactions; more are available.");
    await page.getByRole("button", { name: "Load more" }).click();
    await expect(rows).toHaveCount(3);
    await expect(page.getByTestId("pager-status")).toHaveText("Showing all 3 transactions.");
    await expect.poll(() => shownIds(page)).toEqual([cancelledId, pendingId, completedId]);
  });

  test("a completed transaction shows no offer expiry and links to its credential and back", async ({
    page,
  }, testInfo) => {
    await signIn(page);
    await page.goto("/transactions");
    await rowsOf(page).getByRole("link", { name: completedId }).click();
    await expect(page).toHaveURL(new RegExp(`/transactions/${completedId}$`));
    await expect(page.getByTestId("transaction-status")).toHaveText("completed");
    await expect(fact(page, "Completed")).toBeVisible();
    await expect(fact(page, "Callback reference")).toHaveText(callback);
    // No offer expiry, no offer, nothing to cancel.
    await expect(page.getByTestId("transaction").getByText(/expir/i)).toHaveCount(0);
    await expect(page.getByTestId("offer-expires")).toHaveCount(0);
    await expect(page.getByTestId("pending-offer")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Cancel offer" })).toHaveCount(0);
    // Its credential, with its state, linking to the credential's page.
    const issued = page.getByRole("table", { name: "Credentials issued by this transaction" });
    await expect(issued.locator("tbody tr")).toHaveCount(1);
    await expect(issued.locator("tbody tr").getByRole("cell").nth(1)).toHaveText("active");
    await page.screenshot({ path: testInfo.outputPath("transaction-completed.png"), fullPage: true });
    await issued.getByRole("link", { name: /^cred_/ }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Credential" })).toBeVisible();
    await expect(page.getByTestId("credential-status")).toHaveText("active");
    await page.getByRole("link", { name: completedId }).click();
    await expect(page).toHaveURL(new RegExp(`/transactions/${completedId}$`));
  });

  test("a pending transaction shows its offer and expiry and can be cancelled; a cancelled one cannot", async ({
    page,
  }, testInfo) => {
    await signIn(page);
    const pending = await createOffer(a);
    await page.goto("/transactions");
    // "Open a transaction by id" (from a webhook, say) opens its page.
    await page.getByLabel("Transaction id").fill(pending.id);
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await expect(page.getByTestId("transaction-status")).toHaveText("pending");
    await expect(page.getByTestId("offer-expires")).toHaveText(/\d/);
    await expect(page.getByTestId("qr-code")).toBeVisible();
    expect(await page.getByTestId("qr-link").inputValue()).toBe(pending.credentialOffer);
    await expect(
      page.getByText("None yet: a credential is issued when a wallet redeems the offer."),
    ).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("transaction-pending.png"), fullPage: true });

    // Dismissing the confirmation changes nothing; accepting it cancels.
    page.once("dialog", (dialog) => dialog.dismiss());
    await page.getByRole("button", { name: "Cancel offer" }).click();
    await expect(page.getByTestId("transaction-status")).toHaveText("pending");
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Cancel offer" }).click();
    await expect(page.getByTestId("transaction-status")).toHaveText("cancelled");
    await expect(fact(page, "Cancelled")).toBeVisible();
    await expect(page.getByTestId("offer-expires")).toHaveCount(0);
    await expect(page.getByTestId("qr-code")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Cancel offer" })).toHaveCount(0);

    // An unknown id says so.
    await page.goto("/transactions/itx_unknown");
    await expect(page.getByRole("alert").filter({ hasText: "Could not load the transaction" })).toBeVisible();
  });
});
