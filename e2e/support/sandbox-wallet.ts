import { type Browser, expect, type Page } from "@playwright/test";
import { signIn } from "./env";
import { createOffer } from "./issuance";
import type { Issuer } from "./records";

/**
 * The console's verification playground and its sandbox wallet (/wallet) side by side in one browser
 * context: the console signed in, and the wallet holding one credential of `issuer` (given_name Erika),
 * accepted from an offer made through the API and handed to the wallet as the issuance playground does
 * (`/wallet#offer=…`). `prepare` runs on the console page before it loads (e.g. an init script).
 */
export async function consoleWithWallet(
  browser: Browser,
  issuer: Issuer,
  prepare?: (consolePage: Page) => Promise<void>,
): Promise<{ consolePage: Page; wallet: Page }> {
  const context = await browser.newContext();
  const consolePage = await context.newPage();
  await prepare?.(consolePage);
  await signIn(consolePage);
  const offer = await createOffer({
    issuerId: issuer.issuerId,
    issuerName: issuer.name,
    configuration: issuer.configuration,
  });
  const wallet = await context.newPage();
  await wallet.goto(`/wallet#offer=${encodeURIComponent(offer.credentialOffer ?? "")}`);
  await wallet
    .getByRole("form", { name: "Offer" })
    .getByRole("button", { name: "Accept credential" })
    .click();
  await expect(wallet.getByText("Credential received: Badge.")).toBeVisible();
  return { consolePage, wallet };
}

/** The playground's delivery choices, by their labels. */
export const DELIVERY = {
  link: "QR code or link (request_uri)",
  byValue: "Same-device link, request by value (request=)",
  dcApiSigned: "Digital Credentials API, signed request (openid4vp-v1-signed)",
  dcApiUnsigned: "Digital Credentials API, unsigned request (openid4vp-v1-unsigned)",
} as const;

/** Starts a verification of `policy` in the playground, delivered as chosen; the session is pending. */
export async function startInPlayground(
  page: Page,
  options: { policy: string; delivery: (typeof DELIVERY)[keyof typeof DELIVERY]; origins?: string[] },
) {
  await page.bringToFront();
  await page.goto("/playground/verification");
  await expect(page.getByRole("heading", { level: 1, name: "Verification playground" })).toBeVisible();
  await page.getByLabel("Policy").selectOption(options.policy);
  await page.getByLabel("Delivery").selectOption({ label: options.delivery });
  if (options.origins) await page.getByLabel(/^Expected origins/).fill(options.origins.join("\n"));
  await page.getByRole("button", { name: "Start verification" }).click();
  await expect(page.getByTestId("verification-status")).toHaveText("pending");
}

/** The wallet link the playground shows for the pending session (QR code or same-device link). */
export const playgroundLink = (page: Page) => page.getByTestId("qr-link").inputValue();

/** Pastes a presentation request link into the wallet and reads it. */
export async function readInWallet(wallet: Page, link: string) {
  await wallet.bringToFront();
  await wallet.getByLabel("Presentation request link").fill(link);
  await wallet.getByRole("button", { name: "Read request" }).click();
}

/** Shares what the read request asks for; the verifier took the answer. */
export async function shareInWallet(wallet: Page) {
  await wallet
    .getByRole("form", { name: "Presentation request" })
    .getByRole("button", { name: "Share" })
    .click();
  await expect(wallet.getByTestId("presentation-outcome")).toHaveText(/Shared with the verifier/);
}

/** The playground followed the session to `verified`, showing the disclosed given_name only. */
export async function expectVerifiedInPlayground(page: Page) {
  await page.bringToFront();
  await expect(page.getByTestId("verification-status")).toHaveText("verified");
  const claims = page.getByTestId("verified-claims");
  await expect(claims.getByRole("row", { name: /given_name/ })).toContainText("Erika");
  await expect(claims).not.toContainText("Mustermann");
}
