import { expect, type Page, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";
import { type ActiveIssuer, activeIssuer, issueCredential } from "../support/issuance";

/** A local calendar day as a date input takes it (`YYYY-MM-DD`); the browser runs in this process's zone. */
const day = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;

const rowsOf = (page: Page) =>
  page.getByRole("table", { name: "Credentials, newest first" }).locator("tbody tr");
const shownIds = async (page: Page) =>
  (await rowsOf(page).locator("td:nth-child(2)").allTextContents()).map((s) => s.trim());
const fact = (page: Page, term: string) => page.locator(`dl.facts dt:text-is("${term}") + dd`).first();

/** The labels of the action buttons offered on a credential's page, in order. */
const actionsOffered = (page: Page) =>
  page.getByTestId("credential-actions").getByRole("button").allTextContents();

/** Answers the next confirmation with OK (or Cancel) and clicks the button. */
async function confirmClick(page: Page, name: string, accept = true) {
  page.once("dialog", (dialog) => (accept ? dialog.accept() : dialog.dismiss()));
  await page.getByTestId("credential-actions").getByRole("button", { name }).click();
}

test.describe("Credentials page", () => {
  let a: ActiveIssuer;
  let b: ActiveIssuer;
  const subject = unique("holder");
  let first: { id: string; credentialId: string };
  let second: { id: string; credentialId: string };
  let other: { id: string; credentialId: string };

  test.beforeAll(async () => {
    a = await activeIssuer("cred-a");
    b = await activeIssuer("cred-b");
    first = await issueCredential(a, { externalSubjectReference: subject });
    second = await issueCredential(a);
    other = await issueCredential(b, { externalSubjectReference: subject });
  });

  test("lists credentials newest first and filters them", async ({ page }, testInfo) => {
    await signIn(page);
    await page
      .getByRole("navigation", { name: "Console" })
      .getByRole("link", { name: "Credentials", exact: true })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: "Credentials" })).toBeVisible();
    const rows = rowsOf(page);
    await expect(rows.first()).toBeVisible();
    expect((await shownIds(page)).slice(0, 3)).toEqual([
      other.credentialId,
      second.credentialId,
      first.credentialId,
    ]);

    const filters = page.getByTestId("credential-filters");
    const apply = () => filters.getByRole("button", { name: "Apply filters" }).click();

    await filters.getByLabel("Issuer").selectOption({ label: a.issuerName });
    await apply();
    await expect(page).toHaveURL(new RegExp(`issuerId=${a.issuerId}`));
    await expect(rows).toHaveCount(2);
    await expect.poll(() => shownIds(page)).toEqual([second.credentialId, first.credentialId]);

    await filters.getByLabel("Issuer").selectOption("");
    await filters.getByLabel("Subject reference").fill(subject);
    await apply();
    await expect(rows).toHaveCount(2);
    await expect.poll(() => shownIds(page)).toEqual([other.credentialId, first.credentialId]);

    await filters.getByLabel("Subject reference").fill("");
    await filters.getByLabel("Credential configuration").selectOption(b.configuration);
    await apply();
    await expect(rows).toHaveCount(1);
    await expect.poll(() => shownIds(page)).toEqual([other.credentialId]);

    await filters.getByLabel("Credential configuration").selectOption("");
    await filters.getByLabel("Transaction id").fill(second.id);
    await apply();
    await expect(page).toHaveURL(new RegExp(`transactionId=${second.id}`));
    await expect(rows).toHaveCount(1);
    await expect.poll(() => shownIds(page)).toEqual([second.credentialId]);
    // The row links to its transaction.
    await expect(rows.first().getByRole("link", { name: second.id })).toHaveAttribute(
      "href",
      `/transactions/${second.id}`,
    );

    // Issued today: these are (issuedAt is the start of the UTC day, so "from today" is a local day that
    // may start after it: use yesterday). Issued up to two days ago: none of them.
    const yesterday = new Date();
    yesterday.setDate(yesterday.getDate() - 1);
    await filters.getByLabel("Issued from (on or after)").fill(day(yesterday));
    await apply();
    await expect(rows).toHaveCount(1);
    const twoDaysAgo = new Date();
    twoDaysAgo.setDate(twoDaysAgo.getDate() - 2);
    await filters.getByLabel("Issued from (on or after)").fill("");
    await filters.getByLabel("Issued to (up to and including)").fill(day(twoDaysAgo));
    await apply();
    await expect(page.getByText("No credentials match these filters.")).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("credentials-filtered.png"), fullPage: true });

    await filters.getByRole("button", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(/\/credentials$/);
    expect((await shownIds(page)).slice(0, 3)).toEqual([
      other.credentialId,
      second.credentialId,
      first.credentialId,
    ]);
  });

  test("suspend, reinstate and revoke a credential: the state and the actions offered follow", async ({
    page,
  }, testInfo) => {
    await signIn(page);
    const { credentialId } = first;
    await page.goto(`/credentials?transactionId=${first.id}`);
    await rowsOf(page).getByRole("link", { name: credentialId }).click();
    await expect(page).toHaveURL(new RegExp(`/credentials/${credentialId}$`));

    // What is kept: dates, the status list entry, the holder key's thumbprint, the transaction.
    const status = page.getByTestId("credential-status");
    await expect(status).toHaveText("active");
    await expect(page.getByTestId("credential-issued")).toHaveText(/\d/);
    await expect(page.getByTestId("credential-expires")).toHaveText(/\d/);
    await expect(page.getByTestId("credential-status-list")).toContainText("/status-lists/");
    await expect(page.getByTestId("credential-status-index")).toHaveText(/^\d+$/);
    await expect(page.getByTestId("credential-holder-key").locator("code")).toHaveText(/^[A-Za-z0-9_-]{43}$/);
    await expect(fact(page, "Issuance transaction")).toContainText(first.id);
    await expect(page.getByTestId("credential-suspended")).toHaveCount(0);
    await expect(page.getByTestId("credential-revoked")).toHaveCount(0);
    expect(await actionsOffered(page)).toEqual(["Suspend credential", "Revoke credential"]);
    await page.screenshot({ path: testInfo.outputPath("credential-active.png"), fullPage: true });

    // A dismissed confirmation changes nothing.
    await confirmClick(page, "Suspend credential", false);
    await expect(status).toHaveText("active");
    expect(
      (await cred().get("/v1.0/credentials/{credentialId}", { params: { path: { credentialId } } })).data
        .status,
    ).toBe("active");

    await confirmClick(page, "Suspend credential");
    await expect(status).toHaveText("suspended");
    await expect(
      page.getByRole("status").filter({ hasText: `Credential ${credentialId} suspended.` }),
    ).toBeVisible();
    await expect(page.getByTestId("credential-suspended")).toHaveText(/\d/);
    await expect.poll(() => actionsOffered(page)).toEqual(["Reinstate credential", "Revoke credential"]);
    expect(
      (await cred().get("/v1.0/credentials/{credentialId}", { params: { path: { credentialId } } })).data
        .status,
    ).toBe("suspended");
    await page.screenshot({ path: testInfo.outputPath("credential-suspended.png"), fullPage: true });

    // The list says so too.
    await page.goto(`/credentials?status=suspended&transactionId=${first.id}`);
    await expect(rowsOf(page)).toHaveCount(1);
    await expect(rowsOf(page).first().getByRole("cell").nth(2)).toHaveText("suspended");
    await rowsOf(page).getByRole("link", { name: credentialId }).click();

    await confirmClick(page, "Reinstate credential");
    await expect(status).toHaveText("active");
    await expect(page.getByTestId("credential-suspended")).toHaveCount(0);
    await expect.poll(() => actionsOffered(page)).toEqual(["Suspend credential", "Revoke credential"]);

    // Revoked from suspended: final, with its dates, and nothing left to do.
    await confirmClick(page, "Suspend credential");
    await expect(status).toHaveText("suspended");
    await confirmClick(page, "Revoke credential");
    await expect(status).toHaveText("revoked");
    await expect(page.getByTestId("credential-revoked")).toHaveText(/\d/);
    await expect(fact(page, "Suspended (before its revocation)")).toHaveText(/\d/);
    await expect(page.getByTestId("credential-actions").getByRole("button")).toHaveCount(0);
    await expect(page.getByTestId("no-credential-actions")).toHaveText(
      "No change applies to a revoked credential.",
    );
    expect(
      (await cred().get("/v1.0/credentials/{credentialId}", { params: { path: { credentialId } } })).data
        .status,
    ).toBe("revoked");
    await page.screenshot({ path: testInfo.outputPath("credential-revoked.png"), fullPage: true });

    // The transaction stays completed and lists its credential as revoked.
    await page.getByRole("link", { name: first.id }).click();
    await expect(page.getByTestId("transaction-status")).toHaveText("completed");
    const issued = page.getByRole("table", { name: "Credentials issued by this transaction" });
    await expect(issued.locator("tbody tr").first().getByRole("cell").nth(1)).toHaveText("revoked");
    // The other credentials are untouched.
    await page.goto(`/credentials?status=revoked&issuerId=${a.issuerId}`);
    await expect(rowsOf(page)).toHaveCount(1);
    await expect.poll(() => shownIds(page)).toEqual([credentialId]);
  });

  test("an unknown credential id says so", async ({ page }) => {
    await signIn(page);
    await page.goto("/credentials/cred_unknown");
    await expect(page.getByRole("alert").filter({ hasText: "Could not load the credential" })).toBeVisible();
  });
});
