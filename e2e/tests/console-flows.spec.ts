import { presentWithTestWallet } from "@cred/oid4vc";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { expect, type Page, test } from "@playwright/test";
import { redeemOffer, resolveOffer } from "../../apps/api/test/wallet-client";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * The management tasks end to end in the browser, in order: each step builds on the one before
 * (organisation → issuer → configuration → activation → policy → webhook → keys → playgrounds).
 */
test.describe.configure({ mode: "serial" });

const suffix = unique("e2e");
const orgReference = `acme-${suffix}`;
const issuerName = `Acme issuer ${suffix}`;
const configIdentifier = `membership-${suffix}`;
const policyIdentifier = `member-check-${suffix}`;
let issuerUrl = "";
let issued: { credential: string; holderPrivateKey: CryptoKey } | null = null;
let issuedTransactionId = "";

let page: Page;
test.beforeAll(async ({ browser }) => {
  page = await browser.newPage();
  await signIn(page);
});
// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test.afterEach(async ({}, testInfo) => {
  // The shared page is not the `page` fixture, so keep its screenshot explicitly.
  await testInfo.attach("screenshot", {
    body: await page.screenshot({ fullPage: true }),
    contentType: "image/png",
  });
});
test.afterAll(async () => {
  await page.close();
});

async function go(name: string) {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
}

test("organisation → issuer → configuration → readiness ready → activate", async () => {
  await go("Organisations");
  await page.getByLabel("Reference").fill(orgReference);
  await page.getByLabel("Display name").fill("Acme Bank");
  await page.getByLabel("Country (optional)").selectOption({ label: "Netherlands" });
  await page.getByRole("button", { name: "Create organisation" }).click();
  await expect(page.getByRole("cell", { name: orgReference, exact: true })).toBeVisible();
  // A second organisation, for the issuer to move to.
  await page.getByLabel("Reference").fill(`${orgReference}-2`);
  await page.getByLabel("Display name").fill("Acme Holding");
  await page.getByRole("button", { name: "Create organisation" }).click();
  await expect(page.getByRole("cell", { name: `${orgReference}-2`, exact: true })).toBeVisible();

  await go("Issuers");
  await page.getByLabel("Organisation").selectOption(orgReference);
  await page.getByLabel("Display name").fill(issuerName);
  await page.getByLabel("Name shown in wallets (English, optional)").fill("Acme Bank");
  await page.getByRole("button", { name: "Create issuer" }).click();
  await expect(page.getByRole("heading", { level: 1, name: issuerName })).toBeVisible();
  issuerUrl = page.url();

  // The issuer's own details: a bad logo URL is refused with the server's reason, a description saved.
  await page.getByLabel("Logo URL (optional, https)", { exact: true }).fill("http://acme.example/logo.png");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Could not save the issuer")).toBeVisible();
  await page.getByLabel("Logo URL (optional, https)", { exact: true }).fill("https://acme.example/logo.png");
  await page.getByLabel("Description (optional)").fill("Membership cards of Acme");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Issuer details saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Description (optional)")).toHaveValue("Membership cards of Acme");
  await page.getByLabel(/Require DPoP:/).check();
  await page.getByLabel(/Require DPoP nonces:/).check();
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Issuer details saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel(/Require DPoP:/)).toBeChecked();
  await expect(page.getByLabel(/Require DPoP nonces:/)).toBeChecked();
  await page.getByLabel(/Require DPoP:/).uncheck();
  await page.getByLabel(/Require DPoP nonces:/).uncheck();
  // The authorization page is set here; the wallet side is tested over HTTP.
  await page.getByLabel(/Authorization page/).fill("https://login.acme.example/consent");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Issuer details saved.")).toBeVisible();
  // Redirect URIs wallets may use: the server refuses an unsafe one and says why.
  const redirectUris = page.getByLabel(/Allowed wallet redirect URIs/);
  await redirectUris.fill("http://wallet.example/cb");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText(/http to a loopback address/)).toBeVisible();
  await redirectUris.fill("https://wallet.example/cb\neudi-openid4ci://authorize\n");
  await page.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Issuer details saved.")).toBeVisible();
  const details = page.getByRole("form", { name: "Issuer details" });
  await details.getByLabel("Organisation").selectOption(`${orgReference}-2`);
  await details.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Issuer details saved.")).toBeVisible();
  // Encrypted credential requests and responses: the issuer's key shows once they are offered.
  const encryption = details.getByLabel(/Encrypted credential requests and responses/);
  await encryption.selectOption("optional");
  await details.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("Issuer details saved.")).toBeVisible();
  await expect(page.getByTestId("encryption-key")).toContainText("ECDH-ES key");
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Rotate encryption key" }).click();
  await expect(page.getByTestId("encryption-key")).toContainText("still decrypts until");
  await page.reload();
  await expect(encryption).toHaveValue("optional");
  await expect(details.getByLabel("Organisation")).toHaveValue(`${orgReference}-2`);
  await expect(page.getByLabel(/Authorization page/)).toHaveValue("https://login.acme.example/consent");
  await expect(redirectUris).toHaveValue("https://wallet.example/cb\neudi-openid4ci://authorize");

  // A wallet name is corrected in place (same locale), another locale is added and removed again.
  const display = page.getByTestId("wallet-display");
  await expect(display).toContainText("Acme Bank (en)");
  await page.getByLabel("Name shown in wallets", { exact: true }).fill("Acme Bank NV");
  await page.getByRole("button", { name: "Save display entry" }).click();
  await expect(display).toHaveText("Acme Bank NV (en)Remove");
  await page.getByLabel("Locale").fill("nl");
  await page.getByLabel("Name shown in wallets", { exact: true }).fill("Acme Bank NL");
  await page.getByLabel("Wallet logo URL (optional, https)").fill("https://acme.example/nl.png");
  await page.getByRole("button", { name: "Save display entry" }).click();
  await expect(display).toContainText("Acme Bank NL (nl) · logo https://acme.example/nl.png");
  await page.getByRole("button", { name: "Remove the nl display entry" }).click();
  await expect(display).not.toContainText("(nl)");

  // Item by item: everything but the configuration is satisfied, and activation is not offered yet.
  await expect(page.getByTestId("readiness-summary")).toHaveText(/Not ready/);
  await expect(page.getByTestId("readiness-display-metadata")).toContainText("satisfied");
  await expect(page.getByTestId("readiness-active-credential-configuration")).toContainText("outstanding");
  await expect(page.getByRole("button", { name: "Activate issuer" })).toHaveCount(0);

  await page.getByRole("link", { name: "Create a credential configuration" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Credential configurations" })).toBeVisible();
  await page.getByLabel("Identifier").fill(configIdentifier);
  await page.getByLabel("Display name").fill("Membership card");
  await expect(page.getByLabel("Issuer")).toHaveValue(/^iss_/);

  // The claim editor validates with the API's own zod schema before sending anything.
  await page.getByRole("button", { name: "Add claim" }).click();
  await page.getByLabel("Claim 2 path").fill("member..id");
  await page.getByRole("button", { name: "Create configuration" }).click();
  await expect(page.getByText("Some claims are not valid")).toBeVisible();
  await expect(page.getByLabel("Claim 2 path")).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Claim 2 path").fill("member_since");
  await page.getByLabel("Claim 2 type").selectOption("date");
  await page.getByRole("button", { name: "Add claim" }).click();
  await page.getByLabel("Claim 3 path").fill("family_name");
  await page.getByRole("button", { name: "Create configuration" }).click();
  await expect(page.getByText(`Configuration ${configIdentifier} created`)).toBeVisible();
  await expect(page.getByRole("cell", { name: configIdentifier })).toBeVisible();

  await page.goto(issuerUrl);
  await expect(page.getByTestId("readiness-summary")).toHaveText(/Ready/);
  await expect(page.getByTestId("readiness-active-credential-configuration")).toContainText("satisfied");
  await page.getByRole("button", { name: "Activate issuer" }).click();
  await expect(page.getByText("This issuer is active")).toBeVisible();

  // Rotating the signing key keeps the replaced one published, and the page lists it.
  const firstKid = (await page.getByTestId("signing-key").locator("code").textContent()) as string;
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Rotate key", exact: true }).click();
  await expect(page.getByText("New signing key")).toBeVisible();
  await expect(page.getByTestId("signing-key")).not.toContainText(firstKid);
  await expect(page.getByTestId("previous-signing-keys")).toContainText(firstKid);

  // The new key's certificate: its signing request goes to a CA, the chain it returns is set (a chain
  // that is not one is refused with the server's reason), then removed again.
  const certificate = page.getByTestId("signing-certificate");
  await expect(certificate).toContainText("kid only");
  await page.getByRole("button", { name: "Show certificate signing request" }).click();
  const csrPem = await page.getByLabel(/Certificate signing request \(PEM\)/).inputValue();
  expect(csrPem).toContain("BEGIN CERTIFICATE REQUEST");
  const chainField = page.getByLabel("Certificate chain from your CA (PEM, leaf first)");
  await chainField.fill("not a certificate");
  await page.getByRole("button", { name: "Set chain" }).click();
  await expect(page.getByText("no PEM certificate found")).toBeVisible();
  const ca = await createTestCertificateAuthority();
  await chainField.fill((await ca.certify(csrPem)).chainPem);
  await page.getByRole("button", { name: "Set chain" }).click();
  await expect(page.getByText("Certificate chain set.")).toBeVisible();
  await expect(certificate).toContainText("in use");
  await expect(certificate).toContainText("CN=Test Issuing CA");
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Remove chain" }).click();
  await expect(certificate).toContainText("kid only");

  // Rotating without a gap: the next key is prepared, certified, and the rotation brings its chain along.
  await page.getByRole("button", { name: "Prepare next key" }).click();
  const nextKey = page.getByTestId("next-signing-key");
  await expect(nextKey).toContainText("no certificate yet");
  const nextKid = (await nextKey.locator("code").textContent()) as string;
  await page.getByLabel("Certificate of").selectOption("next");
  await page.getByRole("button", { name: "Show certificate signing request" }).click();
  const nextCsr = await page.getByLabel(/Certificate signing request \(PEM\) for key/).inputValue();
  await chainField.fill((await ca.certify(nextCsr)).chainPem);
  await page.getByRole("button", { name: "Set chain" }).click();
  await expect(nextKey).toContainText("certificate set");
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Rotate key", exact: true }).click();
  await expect(page.getByTestId("signing-key")).toContainText(nextKid);
  await expect(nextKey).toHaveCount(0);
  await expect(certificate).toContainText("in use");

  // Wallet attestation: a leaf certificate is no wallet provider root (the server says so); a CA is.
  const attestation = page.getByTestId("wallet-attestation");
  const walletForm = page.getByRole("form", { name: "Wallet attestation settings" });
  await expect(attestation).toContainText("Not accepting attestations");
  const rootsField = page.getByLabel("Wallet provider CA certificates (PEM, one or more)");
  await rootsField.fill((await ca.certify(nextCsr)).leafPem);
  await walletForm.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Give one PEM-encoded X.509 CA certificate.")).toBeVisible();
  const provider = await createTestCertificateAuthority("CN=Test Wallet Provider CA");
  await rootsField.fill(`${provider.rootPem}\n${ca.rootPem}`);
  await page.getByLabel("Require a wallet attestation").check();
  await page.getByLabel(/Require challenges:/).check();
  await walletForm.getByRole("button", { name: "Save", exact: true }).click();
  await expect(attestation).toHaveText("Accepting attestations under 2 roots; required; with challenges.");
  await walletForm.getByRole("button", { name: "Stop accepting attestations" }).click();
  await expect(attestation).toContainText("Not accepting attestations");

  // Key attestation: a key attester's root and the accepted key storage levels.
  const keyForm = page.getByRole("form", { name: "Key attestation settings" });
  await page.getByLabel("Key attester CA certificates (PEM, one or more)").fill(provider.rootPem);
  await page.getByLabel("Accepted key storage levels (optional)").fill("iso_18045_high, iso_18045_moderate");
  await keyForm.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByTestId("key-attestation")).toHaveText(
    "Accepting attestations under 1 root; optional.",
  );
});

test("configuration versions: a new version from the active claims, then back to version 1", async () => {
  await go("Credential configurations");
  await page.getByRole("link", { name: configIdentifier }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Membership card" })).toBeVisible();
  await expect(page.getByTestId("active-version")).toHaveText("v1");
  // The editor starts from version 1's three claims; the schema's rules hold here too.
  await expect(page.getByLabel("Claim 3 path")).toHaveValue("family_name");
  await page.getByRole("button", { name: "Add claim" }).click();
  await page.getByLabel("Claim 4 path").fill("given_name");
  await page.getByRole("button", { name: "Create version 2" }).click();
  await expect(page.getByText("The claims schema is not valid")).toBeVisible();
  await page.getByLabel("Claim 4 path").fill("nickname");
  await page.getByLabel("Reason (optional)").fill("Adds a nickname");
  await page.getByRole("button", { name: "Create version 2" }).click();
  await expect(page.getByText("Version 2 was created and is now active.")).toBeVisible();
  await expect(page.getByTestId("active-version")).toHaveText("v2");
  const activeClaims = page.getByRole("region", { name: /^Claims of version/ });
  await expect(activeClaims.getByRole("cell", { name: "nickname", exact: true })).toBeVisible();
  await expect(page.getByTestId("version-1-status")).toHaveText("superseded");
  await expect(page.getByRole("cell", { name: "Adds a nickname" })).toBeVisible();

  await page.getByRole("button", { name: "Activate v1" }).click();
  await expect(page.getByText("Version 1 is now active.")).toBeVisible();
  await expect(page.getByTestId("active-version")).toHaveText("v1");
  await expect(page.getByTestId("version-2-status")).toHaveText("superseded");
  await expect(activeClaims.getByRole("cell", { name: "nickname", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Create version 3" })).toBeVisible();
  // The superseded version's claims are read on demand (CredentialConfigurations_GetVersion).
  await page.getByRole("button", { name: "Show v2 claims" }).click();
  await expect(page.getByRole("heading", { name: "Claims of version 2" })).toBeVisible();
  await expect(activeClaims.getByRole("cell", { name: "nickname", exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Show the active version" }).click();
  await expect(page.getByRole("heading", { name: "Claims of version 1 (active)" })).toBeVisible();
});

test("verification policy: create, suspend, reactivate", async () => {
  await go("Verification policies");
  await page.getByLabel("Identifier").fill(policyIdentifier);
  await page.getByLabel("Display name").fill("Member check");
  await page.getByLabel("Credential").selectOption({ label: `Membership card (${configIdentifier})` });
  await page.getByLabel("given_name").check();
  await page.getByRole("button", { name: "Create policy" }).click();
  const row = page.getByTestId(`policy-${policyIdentifier}`);
  await expect(row).toContainText("active");
  await row.getByRole("button", { name: `Suspend ${policyIdentifier}` }).click();
  await expect(row).toContainText("suspended");
  await row.getByRole("button", { name: `Reactivate ${policyIdentifier}` }).click();
  await expect(row).toContainText("active");

  // A same-device policy: the response-code switch is offered once a redirect URL is given.
  const sameDevice = `${policyIdentifier}-same-device`;
  await page.getByLabel("Identifier").fill(sameDevice);
  await page.getByLabel("Display name").fill("Member check at the till");
  await page.getByLabel("Credential").selectOption({ label: `Membership card (${configIdentifier})` });
  await page.getByLabel("given_name").check();
  const requireCode = page.getByLabel(/Show results only to reads with the redirect's response code/);
  await expect(requireCode).toBeDisabled();
  await page.getByLabel("Same-device redirect URL (optional, https)").fill("https://shop.example.com/done");
  await requireCode.check();
  // It trusts any issuer certified under a root, without a revocation check; a root that is not a
  // certificate is refused with the server's reason first.
  await page.getByRole("combobox", { name: /^Trust/ }).selectOption("x5cRoot");
  const rootField = page.getByLabel(/X.509 root certificate \(PEM\)/);
  await rootField.fill("not a certificate");
  await page.getByRole("button", { name: "Create policy" }).click();
  await expect(page.getByText("Could not create the policy")).toBeVisible();
  const root = (await createTestCertificateAuthority("CN=E2E Root")).rootPem;
  await rootField.fill(root);
  await page.getByLabel(/Check revocation/).uncheck();
  await page.getByLabel(/Also accept types that extend this one/).check();
  await page.getByLabel(/Tell the wallet when a presentation fails/).check();
  await page.getByRole("button", { name: "Create policy" }).click();
  await expect(page.getByTestId(`policy-${sameDevice}`)).toContainText("active");
  const stored = await cred().get("/management/verification-policies/{policyIdentifier}", {
    params: { path: { policyIdentifier: sameDevice } },
  });
  expect(stored.data.rules).toMatchObject({
    sameDeviceRedirectUri: "https://shop.example.com/done",
    requireResponseCode: true,
    reportInvalidPresentationsToWallet: true,
    credentials: [
      { trustedIssuers: [{ x5cRoot: root.trim() }], checkStatus: false, acceptExtendedTypes: true },
    ],
  });
});

test("webhook: secret shown once, a delivery appears in the log", async () => {
  const receiver = await startWebhookReceiver();
  try {
    await go("Webhooks");
    await page.getByLabel("Endpoint URL").fill(receiver.url);
    await page.getByLabel("Description (optional)").fill("e2e receiver");
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expect(page.getByTestId("secret-value")).toHaveText(/^whsec_/);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await expect(page.getByTestId("secret-value")).toHaveCount(0);
    await expect(page.getByRole("cell", { name: `${receiver.url} e2e receiver` })).toBeVisible();

    // Cause an event: suspending and reactivating the policy emits verification_policy.* events.
    await go("Verification policies");
    const row = page.getByTestId(`policy-${policyIdentifier}`);
    await row.getByRole("button", { name: `Suspend ${policyIdentifier}` }).click();
    await expect(row).toContainText("suspended");
    await row.getByRole("button", { name: `Reactivate ${policyIdentifier}` }).click();
    await expect(row).toContainText("active");

    await go("Webhooks");
    const log = page.getByTestId("delivery-log");
    await expect(log).toContainText("verification_policy.suspended", { timeout: 30_000 });
    await expect(
      log.getByRole("row").filter({ hasText: "verification_policy.suspended" }).first(),
    ).toContainText("succeeded", { timeout: 30_000 });
    expect(receiver.received.length).toBeGreaterThan(0);

    // Redelivery: one more attempt with the same webhook-id.
    const suspended = log.getByRole("row").filter({ hasText: "verification_policy.suspended" }).first();
    const eventId = receiver.received.find((r) => r.body.includes("verification_policy.suspended"))?.headers[
      "webhook-id"
    ];
    const before = receiver.received.length;
    await suspended.getByRole("button", { name: /^Redeliver/ }).click();
    await expect(suspended.getByRole("cell").nth(3)).toHaveText("2", { timeout: 30_000 });
    expect(receiver.received.length).toBeGreaterThan(before);
    expect(receiver.received.at(-1)!.headers["webhook-id"]).toBe(eventId);
    expect(receiver.received[0]!.headers["webhook-signature"]).toMatch(/^v1,/);

    // The log walks the API's oldest-first pages to the end and shows the newest first, a page at a time.
    await page.goto("/webhooks?pageSize=1");
    const rows = page.getByTestId("delivery-log").locator("tbody tr");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("verification_policy.reactivated");
    await page.getByRole("button", { name: "Show older deliveries" }).click();
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText("verification_policy.suspended");

    // Filters go to the API: one event type, then a status nothing has.
    await page.goto("/webhooks");
    const filters = page.getByTestId("delivery-filters");
    await filters.getByLabel("Event").selectOption("verification_policy.reactivated");
    await expect(log).not.toContainText("verification_policy.suspended");
    await expect(log).toContainText("verification_policy.reactivated");
    await filters.getByLabel("Status").selectOption("failed");
    await expect(page.getByText("No deliveries match these filters.")).toBeVisible();
    await filters.getByLabel("Event").selectOption("");
    await filters.getByLabel("Status").selectOption("");

    // Rotating the secret shows the new one once.
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: `Rotate the secret of webhook ${receiver.url}` }).click();
    await expect(page.getByRole("heading", { name: `New signing secret for ${receiver.url}` })).toBeVisible();
    await expect(page.getByTestId("secret-value")).toHaveText(/^whsec_/);
    await page.getByRole("button", { name: "I have stored it" }).click();
  } finally {
    await receiver.close();
  }
});

test("API key: created with chosen scopes, shown once, revoked", async () => {
  const name = `ci-${suffix}`;
  await go("API keys");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("organisations.read").check();
  await page.getByLabel("issuers.read").check();
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("secret-value")).toHaveText(/^ak_[a-z2-7]{12}_/);
  await page.getByRole("button", { name: "I have stored it" }).click();
  const row = page.getByTestId(`api-key-${name}`);
  await expect(row).toContainText("organisations.read, issuers.read");
  await expect(row).toContainText("active");
  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: new RegExp(`^Revoke ${name} \\(ak_[a-z2-7]{12}\\)$`) }).click();
  await expect(row).toContainText("revoked");
});

test("API key: bound to one issuer and ending on a date, shown so in the list", async () => {
  const name = `ci-bound-${suffix}`;
  await go("API keys");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("credentials.issue").check();
  await page.getByLabel("Issuer", { exact: true }).selectOption({ label: issuerName });
  await page.getByLabel("Expires after (optional, UTC)").fill("2099-12-31");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("secret-value")).toHaveText(/^ak_[a-z2-7]{12}_/);
  await page.getByRole("button", { name: "I have stored it" }).click();
  const row = page.getByTestId(`api-key-${name}`);
  await expect(row).toContainText(issuerName);
  await expect(row).toContainText("2099-12-31 (UTC)");
  await expect(row).toContainText("active");
});

test("issuance playground: QR code, tx_code, completed when a wallet redeems the offer", async () => {
  await go("Issuance playground");
  await page
    .getByLabel("Credential configuration")
    .selectOption({ label: `Membership card (${configIdentifier})` });
  await page.getByLabel("given_name (required)").fill("Erika");
  await page.getByLabel("family_name").fill("Mustermann");
  await page.getByLabel("member_since").fill("2024-05-01");
  await page.getByRole("button", { name: "Create offer" }).click();
  await expect(page.getByTestId("qr-code")).toBeVisible();
  await expect(page.getByTestId("issuance-status")).toHaveText("pending");
  const txCode = (await page.getByTestId("tx-code").textContent())!.trim();
  expect(txCode).toMatch(/^\d{6}$/);
  const link = await page.getByTestId("qr-link").inputValue();
  expect(link).toMatch(/^openid-credential-offer:\/\//);

  const flow = await redeemOffer(link, { txCode });
  expect(flow.credentialRes.status).toBe(200);
  issued = {
    credential: flow.credentialRes.body.credentials[0].credential as string,
    holderPrivateKey: flow.keys[0]!.privateKey as CryptoKey,
  };
  await expect(page.getByTestId("issuance-status")).toHaveText("completed");
  await expect(page.getByTestId("qr-code")).toHaveCount(0);
  issuedTransactionId = (await page.getByTestId("transaction-id").textContent())!.trim();
  expect(issuedTransactionId).toMatch(/^itx_/);
});

test("verification playground: QR code, verified with only the requested claims", async () => {
  expect(issued).not.toBeNull();
  await go("Verification playground");
  await page.getByLabel("Policy").selectOption(policyIdentifier);
  // Transaction data the holder authorises: checked with the API's schema first, then by the server.
  const transactionData = page.getByLabel(/Transaction data \(optional\)/);
  await transactionData.fill("[{ not json");
  await page.getByRole("button", { name: "Start verification" }).click();
  await expect(page.getByText(/Transaction data is not JSON/)).toBeVisible();
  await transactionData.fill('[{ "type": "https://pay.example/payment", "credentialIds": ["other"] }]');
  await page.getByRole("button", { name: "Start verification" }).click();
  await expect(page.getByText(/'other' is not a credential of the policy/)).toBeVisible();
  await transactionData.fill(
    '[{ "type": "https://pay.example/payment", "credentialIds": ["credential"], "fields": { "amount": "42.00" } }]',
  );
  await page.getByRole("button", { name: "Start verification" }).click();
  await expect(page.getByTestId("transaction-data")).toContainText("42.00");
  await expect(page.getByTestId("qr-code")).toBeVisible();
  await expect(page.getByTestId("verification-status")).toHaveText("pending");
  const link = await page.getByTestId("qr-link").inputValue();
  expect(link).toMatch(/^openid4vp:\/\//);

  const answer = await presentWithTestWallet({
    authorizationRequestUri: link,
    fetch: (input, init) => fetch(input, init),
    credential: issued!.credential,
    holderPrivateKey: issued!.holderPrivateKey,
  });
  expect(answer.status).toBe(200);
  await expect(page.getByTestId("verification-status")).toHaveText("verified");
  const claims = page.getByTestId("verified-claims");
  await expect(claims.getByRole("row", { name: /given_name/ })).toContainText("Erika");
  await expect(claims).not.toContainText("Mustermann");
  await expect(claims).toContainText("transactionData passed");
});

test("the dashboard counts what the flows created", async () => {
  await go("Dashboard");
  await expect(page.getByTestId("total-activeIssuers")).not.toHaveText("0");
  await expect(page.getByTestId("total-credentials")).not.toHaveText("0");
  await expect(page.getByTestId("total-verifiedSessions")).not.toHaveText("0");
});

test("credentials: a pending offer is cancelled in the playground; an issued credential is revoked", async () => {
  await go("Issuance playground");
  await page
    .getByLabel("Credential configuration")
    .selectOption({ label: `Membership card (${configIdentifier})` });
  await page.getByLabel("given_name (required)").fill("Max");
  // This offer is for the authorization code flow: no tx_code, an issuer_state in the offer.
  await page.getByLabel("Grant").selectOption("authorizationCode");
  await expect(page.getByLabel("Protect the offer with a transaction code (tx_code)")).toHaveCount(0);
  // A HAIP wallet's link.
  await page.getByLabel("Wallet link").selectOption("haip");
  await page.getByRole("button", { name: "Create offer" }).click();
  await expect(page.getByTestId("issuance-status")).toHaveText("pending");
  await expect(page.getByTestId("tx-code")).toHaveCount(0);
  const haipLink = await page.getByTestId("qr-link").inputValue();
  expect(haipLink).toMatch(/^haip-vci:\/\/\?credential_offer_uri=/);
  const offer = await resolveOffer(haipLink);
  expect(Object.keys(offer.grants)).toEqual(["authorization_code"]);
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Cancel offer" }).click();
  await expect(page.getByTestId("issuance-status")).toHaveText("cancelled");
  await expect(page.getByRole("button", { name: "Cancel offer" })).toHaveCount(0);

  expect(issuedTransactionId).toMatch(/^itx_/);
  await go("Transactions");
  await page.getByLabel("Transaction id").fill(issuedTransactionId);
  await page.getByRole("button", { name: "Open", exact: true }).click();
  await expect(page.getByTestId("transaction-status")).toHaveText("completed");
  await page
    .getByRole("table", { name: "Credentials issued by this transaction" })
    .getByRole("link")
    .first()
    .click();
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Revoke credential" }).click();
  await expect(page.getByTestId("credential-status")).toHaveText("revoked");
  await expect(page.getByRole("button", { name: "Revoke credential" })).toHaveCount(0);

  // A deferred issuance: staff supply the claims after their review; the server checks them.
  const { data: deferred } = await cred().post("/v1.0/issuance-transactions", {
    body: {
      credentialConfiguration: configIdentifier,
      issuerId: issuerUrl.split("/issuers/")[1]!,
      delivery: { deferred: true },
    },
  });
  await go("Transactions");
  await page.getByLabel("Transaction id").fill(deferred.id);
  await page.getByRole("button", { name: "Open", exact: true }).click();
  await expect(page.getByTestId("deferral-claims")).toHaveText("awaited");
  const claimsField = page.getByLabel("Claims (JSON object)");
  await claimsField.fill('{"given_name": 42}');
  await page.getByRole("button", { name: "Supply claims" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Could not supply the claims" })).toBeVisible();
  await claimsField.fill('{"given_name": "Max"}');
  await page.getByRole("button", { name: "Supply claims" }).click();
  await expect(page.getByTestId("deferral-claims")).toHaveText(/^supplied /);
  await expect(page.getByRole("button", { name: "Supply claims" })).toHaveCount(0);

  await go("Transactions");
  await page.getByLabel("Transaction id").fill("itx_unknown");
  await page.getByRole("button", { name: "Open", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Could not load the transaction" })).toBeVisible();
});

test("verification playground: a pending verification is cancelled", async () => {
  await go("Verification playground");
  await page.getByLabel("Policy").selectOption(policyIdentifier);
  await page.getByLabel("Wallet link").selectOption("haip");
  await page.getByRole("button", { name: "Start verification" }).click();
  await expect(page.getByTestId("verification-status")).toHaveText("pending");
  expect(await page.getByTestId("qr-link").inputValue()).toMatch(/^haip-vp:\/\/\?client_id=/);
  await page.getByRole("button", { name: "Cancel verification" }).click();
  await expect(page.getByTestId("verification-status")).toHaveText("cancelled");
  await expect(page.getByTestId("qr-code")).toHaveCount(0);
});

test("verifier certificate: the generated one is shown; an unusable upload is refused with each problem", async () => {
  await go("Verifier certificate");
  const current = page.getByTestId("verifier-certificate");
  await expect(current).toContainText("generated");
  await expect(current).toContainText("x509_hash:");
  await page.getByLabel("Certificate chain (PEM, leaf first)").fill("not a certificate");
  await page.getByLabel("Private key of the leaf (PEM, unencrypted)").fill("not a key");
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Could not use this certificate" });
  await expect(alert).toContainText("certificateChainPem");
  await expect(alert).toContainText("privateKeyPem");
  await expect(current).toContainText("generated");
});
