import { expect, type Page, test } from "@playwright/test";
import { answerAsDcApiHolder, type HolderAnswer } from "../support/dc-api-holder";
import { unique } from "../support/env";
import { activeIssuer, type Issued, type Issuer, issue, policy } from "../support/records";
import {
  consoleWithWallet,
  DELIVERY,
  expectVerifiedInPlayground,
  playgroundLink,
  readInWallet,
  shareInWallet,
  startInPlayground,
} from "../support/sandbox-wallet";

/**
 * The verification playground's delivery choices, each finished in the browser: the wallet links
 * (request_uri, and the signed request by value) answered by the console's sandbox wallet, and the
 * Digital Credentials API (signed and unsigned, dc_api.jwt and dc_api) answered through "Ask this
 * browser's wallet", where an init script supplies the wallet side of navigator.credentials.get
 * (support/dc-api-holder.ts). The playground shows the session's final state.
 */
test.describe.configure({ mode: "serial" });

const policies = { jwt: unique("pg-jwt"), plain: unique("pg-plain") };
let issuer: Issuer;
let issued: Issued;
let consolePage: Page;
let wallet: Page;
let holderSaw: HolderAnswer[];

test.beforeAll(async ({ browser }) => {
  issuer = await activeIssuer();
  issued = await issue(issuer);
  for (const [identifier, responseMode] of [
    [policies.jwt, "direct_post.jwt"],
    [policies.plain, "direct_post"],
  ] as const) {
    await policy(identifier, issuer, { settings: { responseMode, dcApi: "signed_or_unsigned" } });
  }
  ({ consolePage, wallet } = await consoleWithWallet(browser, issuer, async (page) => {
    holderSaw = await answerAsDcApiHolder(page, issued);
  }));
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test.afterEach(async ({}, testInfo) => {
  await consolePage.screenshot({ path: testInfo.outputPath("console.png"), fullPage: true });
  await wallet.screenshot({ path: testInfo.outputPath("wallet.png"), fullPage: true });
});

test("QR code or link: the sandbox wallet fetches the request from request_uri and answers", async () => {
  await startInPlayground(consolePage, { policy: policies.jwt, delivery: DELIVERY.link });
  await expect(consolePage.getByTestId("qr-code")).toBeVisible();
  const link = await playgroundLink(consolePage);
  expect(link).toMatch(/^openid4vp:\/\/\?.*request_uri=/);
  await readInWallet(wallet, link);
  await expect(wallet.getByTestId("request-delivery")).toHaveText(/fetched from request_uri \(POST/);
  await shareInWallet(wallet);
  await expectVerifiedInPlayground(consolePage);
});

test("request by value: the link carries the signed request, the sandbox wallet checks it and answers", async () => {
  await startInPlayground(consolePage, { policy: policies.jwt, delivery: DELIVERY.byValue });
  // Drawn as a QR code, or said to be too long for one (never left "Drawing…").
  await expect(consolePage.getByTestId("qr-code").or(consolePage.getByTestId("qr-too-long"))).toBeVisible();
  const link = new URL(await playgroundLink(consolePage));
  expect(link.searchParams.has("request_uri")).toBe(false);
  expect(link.searchParams.get("request")?.split(".")).toHaveLength(3);
  await readInWallet(wallet, link.toString());
  await expect(wallet.getByTestId("request-delivery")).toHaveText(/by value in the link \(request=\)/);
  await expect(wallet.getByTestId("verifier-client-id")).toHaveText(link.searchParams.get("client_id")!);
  await shareInWallet(wallet);
  await expectVerifiedInPlayground(consolePage);
});

for (const [responseMode, policy] of [
  ["dc_api.jwt", () => policies.jwt],
  ["dc_api", () => policies.plain],
] as const) {
  for (const signed of [true, false]) {
    test(`Digital Credentials API, ${signed ? "signed" : "unsigned"}, ${responseMode}: this browser's wallet answers`, async () => {
      const origin = new URL(consolePage.url()).origin;
      await startInPlayground(consolePage, {
        policy: policy(),
        delivery: signed ? DELIVERY.dcApiSigned : DELIVERY.dcApiUnsigned,
        origins: [origin],
      });
      const protocol = signed ? "openid4vp-v1-signed" : "openid4vp-v1-unsigned";
      await expect(consolePage.getByTestId("dc-api-request")).toContainText(protocol);
      await expect(consolePage.getByTestId("qr-code")).toHaveCount(0);
      const before = holderSaw.length;
      await consolePage.getByRole("button", { name: "Ask this browser's wallet" }).click();
      await expectVerifiedInPlayground(consolePage);
      expect(holderSaw.slice(before)).toEqual([{ protocol, responseMode }]);
    });
  }
}

test("Digital Credentials API, signed for another origin: the wallet refuses and the session stays pending", async () => {
  await startInPlayground(consolePage, {
    policy: policies.jwt,
    delivery: DELIVERY.dcApiSigned,
    origins: ["https://shop.example.com"],
  });
  await consolePage.getByRole("button", { name: "Ask this browser's wallet" }).click();
  const refused = consolePage.getByRole("alert").filter({ hasText: "The browser's wallet did not answer" });
  await expect(refused).toContainText("is not in expected_origins");
  await expect(consolePage.getByTestId("verification-status")).toHaveText("pending");
});
