import { expect, type Page, test } from "@playwright/test";
import { unique } from "../support/env";
import { activeIssuer, type Issuer, policy } from "../support/records";
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
 * The sandbox wallet with the verifier's other client identifier prefixes (OpenID4VP §5.9.3), started
 * in the verification playground from policies that choose them: `redirect_uri` (unsigned, plain
 * parameters in the link, answered at the client id's URL) and `decentralized_identifier` (a request
 * object signed by the key of the verifier's did:jwk); and what the wallet refuses of each.
 */
test.describe.configure({ mode: "serial" });

const policies = {
  redirectUri: unique("cid-redirect"),
  did: unique("cid-did"),
  didWeb: unique("cid-did-web"),
};
let issuer: Issuer;
let consolePage: Page;
let wallet: Page;

test.beforeAll(async ({ browser }) => {
  issuer = await activeIssuer();
  for (const [identifier, clientIdPrefix, responseMode] of [
    [policies.redirectUri, "redirect_uri", "direct_post"],
    [policies.did, "decentralized_identifier", "direct_post.jwt"],
  ] as const) {
    await policy(identifier, issuer, { settings: { responseMode, clientIdPrefix } });
  }
  await policy(policies.didWeb, issuer, {
    settings: {
      responseMode: "direct_post.jwt",
      clientIdPrefix: "decentralized_identifier",
      didMethod: "web",
    },
  });
  ({ consolePage, wallet } = await consoleWithWallet(browser, issuer));
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructured fixtures argument
test.afterEach(async ({}, testInfo) => {
  await consolePage.screenshot({ path: testInfo.outputPath("console.png"), fullPage: true });
  await wallet.screenshot({ path: testInfo.outputPath("wallet.png"), fullPage: true });
});

const readFailure = (page: Page) => page.getByRole("alert").filter({ hasText: "Could not read the request" });

test("redirect_uri: the unsigned request in the link is answered at the client id's URL", async () => {
  await startInPlayground(consolePage, { policy: policies.redirectUri, delivery: DELIVERY.link });
  const link = new URL(await playgroundLink(consolePage));
  const responseUri = link.searchParams.get("response_uri")!;
  expect(link.searchParams.get("client_id")).toBe(`redirect_uri:${responseUri}`);
  expect(link.searchParams.has("request_uri")).toBe(false);

  // A response_uri other than the client id's URL is refused, and nothing is shown to share.
  const redirected = new URL(link);
  redirected.searchParams.set("response_uri", "https://elsewhere.example/responses");
  await readInWallet(wallet, redirected.toString());
  await expect(readFailure(wallet)).toContainText(
    "response_uri differs from the redirect_uri client identifier",
  );
  await expect(wallet.getByRole("form", { name: "Presentation request" })).toHaveCount(0);

  await readInWallet(wallet, link.toString());
  const request = wallet.getByRole("form", { name: "Presentation request" });
  await expect(request.getByTestId("request-delivery")).toHaveText(
    /plain parameters in the link \(unsigned\)/,
  );
  await expect(request.getByTestId("verifier-check")).toContainText("Unsigned request");
  await expect(request.getByTestId("verifier-check")).toContainText(responseUri);
  await expect(request.getByTestId("verifier-subject")).toHaveText(new URL(responseUri).host);
  await shareInWallet(wallet);
  await expectVerifiedInPlayground(consolePage);
});

test("decentralized_identifier: the request signed by the did:jwk's key is checked and answered", async () => {
  await startInPlayground(consolePage, { policy: policies.did, delivery: DELIVERY.link });
  const link = await playgroundLink(consolePage);
  const clientId = new URL(link).searchParams.get("client_id")!;
  expect(clientId).toMatch(/^decentralized_identifier:did:jwk:/);
  await readInWallet(wallet, link);
  const request = wallet.getByRole("form", { name: "Presentation request" });
  await expect(request.getByTestId("verifier-client-id")).toHaveText(clientId);
  await expect(request.getByTestId("verifier-check")).toContainText(
    "Signed by the key of the client's did:jwk",
  );
  await expect(request).toContainText("encrypted to the verifier");
  await shareInWallet(wallet);
  await expectVerifiedInPlayground(consolePage);
});

test("decentralized_identifier with did:web: the wallet reads the DID document from the API and checks the signature", async () => {
  await startInPlayground(consolePage, { policy: policies.didWeb, delivery: DELIVERY.link });
  const link = await playgroundLink(consolePage);
  const clientId = new URL(link).searchParams.get("client_id")!;
  expect(clientId).toMatch(/^decentralized_identifier:did:web:/);
  await readInWallet(wallet, link);
  const request = wallet.getByRole("form", { name: "Presentation request" });
  await expect(request.getByTestId("verifier-client-id")).toHaveText(clientId);
  await expect(request.getByTestId("verifier-check")).toContainText(
    "Signed by a key of the client's did:web document, read from",
  );
  await expect(request.getByTestId("verifier-check")).toContainText("/did.json");
  await shareInWallet(wallet);
  await expectVerifiedInPlayground(consolePage);
});

test("decentralized_identifier by value: a request whose key is not the link's did:jwk is refused", async () => {
  await startInPlayground(consolePage, { policy: policies.did, delivery: DELIVERY.byValue });
  const link = new URL(await playgroundLink(consolePage));
  expect(link.searchParams.get("request")?.split(".")).toHaveLength(3);
  // Another verifier's DID in the link: the request object's kid and key are not that DID's.
  const other = `did:jwk:${Buffer.from(
    JSON.stringify({
      crv: "P-256",
      kty: "EC",
      x: "gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0",
      y: "SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps",
    }),
  ).toString("base64url")}`;
  const forged = new URL(link);
  forged.searchParams.set("client_id", `decentralized_identifier:${other}`);
  await readInWallet(wallet, forged.toString());
  await expect(readFailure(wallet)).toContainText(
    "kid is not the verification method of the client's did:jwk",
  );
  await expect(wallet.getByRole("form", { name: "Presentation request" })).toHaveCount(0);

  // The link as made: the wallet verifies it with the DID's own key and the session is verified.
  await readInWallet(wallet, link.toString());
  await expect(wallet.getByTestId("request-delivery")).toHaveText(/by value in the link \(request=\)/);
  await shareInWallet(wallet);
  await expectVerifiedInPlayground(consolePage);
});
