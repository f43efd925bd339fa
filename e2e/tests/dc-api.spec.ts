import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startExampleServer } from "../../examples/dc-api/server.mjs";
import { answerAsDcApiHolder } from "../support/dc-api-holder";
import { apiOrigin, bootstrapCredentials, unique } from "../support/env";
import { activeIssuer, type Issued, type Issuer, issue, policy } from "../support/records";

/**
 * The Digital Credentials API flow in Chromium, end to end: the example page (examples/dc-api) with the
 * browser SDK (@cred/web-verify) and its tiny backend on the platform's REST API. The wallet side of
 * navigator.credentials.get is an init script that hands the request to the test holder with the page's
 * origin, as a browser would (support/dc-api-holder.ts).
 */

let example: { url: string; close: () => Promise<void> };
let issuer: Issuer;
let issued: Issued;
const policies = { jwt: unique("dc-jwt"), plain: unique("dc-plain") };

test.beforeAll(async () => {
  execFileSync("pnpm", ["--filter", "@cred/web-verify", "build"], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: "ignore",
  });
  issuer = await activeIssuer();
  issued = await issue(issuer);
  for (const [identifier, responseMode] of [
    [policies.jwt, "direct_post.jwt"],
    [policies.plain, "direct_post"],
  ] as const) {
    await policy(identifier, issuer, { settings: { responseMode, dcApi: "signed_or_unsigned" } });
  }
  example = await startExampleServer({
    platformUrl: apiOrigin(),
    apiKey: bootstrapCredentials().apiKey,
    port: 0,
  });
});
test.afterAll(async () => example?.close());

for (const [mode, policyOf] of [
  ["dc_api.jwt", () => policies.jwt],
  ["dc_api", () => policies.plain],
] as const) {
  for (const signed of [true, false]) {
    test(`${mode}, ${signed ? "signed" : "unsigned"}: the page verifies through navigator.credentials.get`, async ({
      page,
    }) => {
      const seen = await answerAsDcApiHolder(page, issued);
      await page.goto(`${example.url}/?policy=${policyOf()}&signed=${signed}`);
      await page.getByRole("button", { name: "Verify with your wallet" }).click();
      await expect(page.getByRole("status")).toHaveText("Verification verified");
      await expect(page.locator("#result")).toContainText('"given_name": "Erika"');
      await expect(page.locator("#result")).not.toContainText("Mustermann");
      expect(seen).toEqual([
        { protocol: signed ? "openid4vp-v1-signed" : "openid4vp-v1-unsigned", responseMode: mode },
      ]);
    });
  }
}

test("without the Digital Credentials API the page falls back to the wallet link", async ({ page }) => {
  await page.addInitScript(() => {
    delete (window as unknown as Record<string, unknown>).DigitalCredential;
  });
  await page.goto(`${example.url}/?policy=${policies.jwt}`);
  await page.getByRole("button", { name: "Verify with your wallet" }).click();
  await expect(page.getByRole("link", { name: "open your wallet" })).toHaveAttribute(
    "href",
    /^openid4vp:\/\/\?client_id=x509_hash/,
  );
});
