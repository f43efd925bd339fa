import { expect, type Page, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";

/**
 * The console's sandbox wallet (/wallet) end to end, in the browser only: an offer made in the issuance
 * playground is opened in the wallet, accepted with its tx_code and shown as a card with its claims; a
 * verification started in the verification playground is pasted into the wallet, answered with the
 * disclosures the holder chose and verified; the credential revoked in the console shows revoked in the
 * wallet and a new verification with it is rejected. The wallet talks to the API over OpenID4VCI and
 * OpenID4VP only (cross-origin: the API's wallet endpoints allow CORS). A second issuer requires DPoP
 * with nonces and encrypted credential requests, and offers the authorization code flow.
 */
test.describe.configure({ mode: "serial" });

const suffix = unique("wallet");
const configIdentifier = `wallet-card-${suffix}`;
const policyIdentifier = `wallet-check-${suffix}`;
let issuerId = "";
let credentialType = "";
let credentialId = "";

let console_: Page;
let wallet: Page;
test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  console_ = await context.newPage();
  await signIn(console_);
  // The issuer and its configuration (two claims) through the Management API: the wallet's flows are
  // what this spec is about, and console-flows.spec.ts covers making them in the console.
  const organisation = await cred().post("/management/organisations", {
    body: { reference: `org-${suffix}`, displayName: `Organisation ${suffix}` },
  });
  const issuer = await cred().post("/management/issuers", {
    body: {
      organisationReference: organisation.data.reference,
      displayName: `Wallet issuer ${suffix}`,
      display: [{ locale: "en", name: `Wallet issuer ${suffix}` }],
    },
  });
  issuerId = issuer.data.id;
  const configuration = await cred().post("/management/credential-configurations", {
    body: {
      identifier: configIdentifier,
      displayName: "Library card",
      issuerId,
      schemaId: "library-card-v1",
      claims: [
        { path: ["given_name"], type: "string", required: true },
        { path: ["family_name"], type: "string", required: true },
      ],
    },
  });
  credentialType = configuration.data.credentialType;
  await cred().post("/management/issuers/{issuerId}/activate", { params: { path: { issuerId } } });
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test.afterEach(async ({}, testInfo) => {
  await console_.screenshot({ path: testInfo.outputPath("console.png"), fullPage: true });
  if (wallet && !wallet.isClosed()) {
    await wallet.screenshot({ path: testInfo.outputPath("wallet.png"), fullPage: true });
  }
});

async function go(page: Page, name: string) {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
}

/** Starts a verification of the policy in the playground and returns its openid4vp:// link. */
async function startVerification(): Promise<string> {
  await go(console_, "Verification playground");
  await console_.getByLabel("Policy").selectOption(policyIdentifier);
  await console_.getByRole("button", { name: "Start verification" }).click();
  await expect(console_.getByTestId("verification-status")).toHaveText("pending");
  const link = await console_.getByTestId("qr-link").inputValue();
  expect(link).toMatch(/^openid4vp:\/\//);
  return link;
}

/** Pastes a request into the wallet and reads it; the wallet shows the verifier and what is asked. */
async function readRequest(link: string) {
  await wallet.bringToFront();
  await wallet.getByLabel("Presentation request link").fill(link);
  await wallet.getByRole("button", { name: "Read request" }).click();
  await expect(wallet.getByRole("form", { name: "Presentation request" })).toBeVisible();
}

test("an offer from the issuance playground is accepted in the wallet and shown as a card", async () => {
  await go(console_, "Issuance playground");
  await console_
    .getByLabel("Credential configuration")
    .selectOption({ label: `Library card (${configIdentifier})` });
  await console_.getByLabel("given_name (required)").fill("Erika");
  await console_.getByLabel("family_name (required)").fill("Mustermann");
  await console_.getByRole("button", { name: "Create offer" }).click();
  await expect(console_.getByTestId("issuance-status")).toHaveText("pending");
  const txCode = (await console_.getByTestId("tx-code").textContent())!.trim();

  [wallet] = await Promise.all([
    console_.context().waitForEvent("page"),
    console_.getByRole("link", { name: "Open in sandbox wallet" }).click(),
  ]);
  await expect(wallet.getByRole("heading", { level: 1, name: "Sandbox wallet" })).toBeVisible();
  const offer = wallet.getByRole("form", { name: "Offer" });
  await expect(offer.getByTestId("offer-issuer")).toHaveText(`Wallet issuer ${suffix}`);
  // The offer left the URL: a reload does not redeem it again.
  expect(wallet.url()).not.toContain("offer=");
  await offer.getByLabel(/Transaction code/).fill(txCode);
  await offer.getByRole("button", { name: "Accept credential" }).click();
  await expect(wallet.getByText("Credential received: Library card.")).toBeVisible();

  const card = wallet.getByTestId("wallet-credential").first();
  await expect(card.getByRole("heading", { name: "Library card" })).toBeVisible();
  await expect(card).toContainText(`Issued by Wallet issuer ${suffix}`);
  const claims = card.getByTestId("wallet-claims");
  await expect(claims.getByRole("row", { name: /given_name/ })).toContainText("Erika");
  await expect(claims.getByRole("row", { name: /family_name/ })).toContainText("Mustermann");
  await expect(card.getByTestId("wallet-credential-status")).toHaveText("valid");

  // The playground followed the transaction to its end and names the credential.
  await console_.bringToFront();
  await expect(console_.getByTestId("issuance-status")).toHaveText("completed");
  credentialId = (await console_.getByRole("link", { name: /^crd_|^cred_/ }).textContent())?.trim() ?? "";
  expect(credentialId).not.toBe("");
});

test("a verification pasted into the wallet is answered with the chosen disclosures and verified", async () => {
  await go(console_, "Verification policies");
  await console_.getByLabel("Identifier").fill(policyIdentifier);
  await console_.getByLabel("Display name").fill("Library check");
  await console_.getByLabel("Credential").selectOption({ label: `Library card (${configIdentifier})` });
  await console_.getByLabel("given_name").check();
  await console_.getByRole("button", { name: "Create policy" }).click();
  await expect(console_.getByTestId(`policy-${policyIdentifier}`)).toContainText("active");

  const link = await startVerification();
  await readRequest(link);
  const request = wallet.getByRole("form", { name: "Presentation request" });
  await expect(request.getByTestId("verifier-subject")).not.toBeEmpty();
  // Only what the policy asks for is offered: given_name, not family_name.
  const share = request.getByLabel(/^Share given_name/);
  await expect(share).toBeChecked();
  await expect(request.getByLabel(/^Share family_name/)).toHaveCount(0);
  // The holder may withhold it (then the verifier would refuse); here they share it.
  await share.uncheck();
  await share.check();
  await request.getByRole("button", { name: "Share" }).click();
  await expect(wallet.getByTestId("presentation-outcome")).toHaveText(/Shared with the verifier/);

  await console_.bringToFront();
  await expect(console_.getByTestId("verification-status")).toHaveText("verified");
  const verified = console_.getByTestId("verified-claims");
  await expect(verified.getByRole("row", { name: /given_name/ })).toContainText("Erika");
  await expect(verified).not.toContainText("Mustermann");
});

test("revoked in the console: the wallet shows it revoked and a new verification is rejected", async () => {
  await console_.goto(`/credentials/${credentialId}`);
  console_.once("dialog", (dialog) => dialog.accept());
  await console_.getByRole("button", { name: "Revoke credential" }).click();
  await expect(console_.getByTestId("credential-status")).toHaveText("revoked");

  await wallet.bringToFront();
  const card = wallet.getByTestId("wallet-credential").first();
  await card.getByRole("button", { name: "Check status" }).click();
  await expect(card.getByTestId("wallet-credential-status")).toHaveText("revoked");

  const link = await startVerification();
  await readRequest(link);
  await wallet
    .getByRole("form", { name: "Presentation request" })
    .getByRole("button", { name: "Share" })
    .click();
  await expect(wallet.getByTestId("presentation-outcome")).toBeVisible();
  await console_.bringToFront();
  await expect(console_.getByTestId("verification-status")).toHaveText("rejected");
});

test("an issuer requiring DPoP nonces and encryption, through the authorization code flow", async () => {
  await cred().patch("/management/issuers/{issuerId}", {
    params: { path: { issuerId } },
    body: { requireDpop: true, requireDpopNonce: true, credentialEncryption: { required: true } },
  });
  await console_.bringToFront();
  await go(console_, "Issuance playground");
  await console_
    .getByLabel("Credential configuration")
    .selectOption({ label: `Library card (${configIdentifier})` });
  await console_.getByLabel("given_name (required)").fill("Max");
  await console_.getByLabel("family_name (required)").fill("Muster");
  await console_.getByLabel("Grant").selectOption("authorizationCode");
  await console_.getByRole("button", { name: "Create offer" }).click();
  await expect(console_.getByTestId("issuance-status")).toHaveText("pending");
  const link = await console_.getByTestId("qr-link").inputValue();

  // Pasted this time (by reference), as a holder would with a link sent to them.
  await wallet.bringToFront();
  await wallet.getByLabel("Credential offer link").fill(link);
  await wallet.getByRole("button", { name: "Read offer" }).click();
  const offer = wallet.getByRole("form", { name: "Offer" });
  await expect(offer).toContainText("Authorization code");
  await offer.getByRole("button", { name: "Continue at the issuer" }).click();
  // PAR → the issuer's /authorize → back to /wallet with the code → token (DPoP) → encrypted credential.
  await expect(wallet.getByText("Credential received: Library card.")).toBeVisible();
  await expect(wallet).toHaveURL(/\/wallet$/);
  const card = wallet.getByTestId("wallet-credential").first();
  await expect(card.getByTestId("wallet-claims").getByRole("row", { name: /given_name/ })).toContainText(
    "Max",
  );
  await expect(card.getByTestId("wallet-credential-status")).toHaveText("valid");
  await console_.bringToFront();
  await expect(console_.getByTestId("issuance-status")).toHaveText("completed");
});

test("a direct_post request (not encrypted) asking for two claims, answered with the newest credential", async () => {
  // The console's policy form always asks for direct_post.jwt; this policy comes from the Management API.
  const identifier = `${policyIdentifier}-plain`;
  await cred().post("/management/verification-policies", {
    body: {
      identifier,
      displayName: "Library check (plain)",
      responseMode: "direct_post",
      credentials: [
        {
          id: "card",
          credentialTypes: [credentialType],
          trustedIssuers: [{ issuerId }],
          requiredClaims: [["given_name"], ["family_name"]],
        },
      ],
    },
  });
  await console_.bringToFront();
  await go(console_, "Verification playground");
  await console_.getByLabel("Policy").selectOption(identifier);
  await console_.getByRole("button", { name: "Start verification" }).click();
  const link = await console_.getByTestId("qr-link").inputValue();

  await readRequest(link);
  const request = wallet.getByRole("form", { name: "Presentation request" });
  await expect(request).toContainText("direct_post");
  await expect(request).not.toContainText("encrypted to the verifier");
  // Two library cards match (Erika's, revoked, and Max's): the newest is chosen first.
  await expect(request.getByLabel("Credential").locator("option")).toHaveCount(2);
  await expect(request.getByLabel(/^Share given_name/)).toHaveAccessibleName(/Max/);
  await expect(request.getByLabel(/^Share family_name/)).toBeChecked();
  await request.getByRole("button", { name: "Share" }).click();
  await expect(wallet.getByTestId("presentation-outcome")).toHaveText(/Shared with the verifier/);

  await console_.bringToFront();
  await expect(console_.getByTestId("verification-status")).toHaveText("verified");
  const verified = console_.getByTestId("verified-claims");
  await expect(verified.getByRole("row", { name: /given_name/ })).toContainText("Max");
  await expect(verified.getByRole("row", { name: /family_name/ })).toContainText("Muster");
});

test("the wallet is refused in production and not in its navigation", async () => {
  await console_.bringToFront();
  await console_.getByLabel("Environment").selectOption("production");
  await expect(
    console_.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Sandbox wallet" }),
  ).toHaveCount(0);
  await console_.goto("/wallet");
  await expect(console_.getByTestId("wallet-refused")).toContainText("sandbox environment only");
  await expect(console_.getByLabel("Credential offer link")).toHaveCount(0);
  await console_.getByLabel("Environment").selectOption("sandbox");
  await expect(
    console_.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Sandbox wallet" }),
  ).toBeVisible();
});
