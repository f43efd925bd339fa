import http from "node:http";
import type { AddressInfo } from "node:net";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import {
  buildTrustedListXml,
  createTestSigner,
  signTrustedListXml,
  type TestSigner,
} from "@cred/oid4vc/trust-lists/testing";
import { expect, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";
import { activeIssuer } from "../support/records";

const DAY = 86_400_000;

/**
 * The trust-sources pages (docs/api/trust-sources.md) against lists this test serves from a loopback server
 * (the e2e API runs in development mode with 127.0.0.1 allow-listed, so the outbound guard lets it through):
 * a test LoTL signed by its signer, pointing to a DE list (a granted PID CA and a withdrawn CA) signed by
 * the DE signer. Through the UI: a wrong signer is refused, the LoTL is added, its lists and services are
 * shown, a refresh that finds a tampered list keeps the last good copy (stale) and says why, a policy and
 * an issuer trust "trust source + service type", and the source is deleted.
 */
test("trust sources: add a LoTL, see its lists and services, refresh (refused: stale), trust it from a policy and an issuer, delete", async ({
  page,
}) => {
  const [lotlSigner, deSigner, pidCa, oldCa, stranger] = await Promise.all([
    createTestSigner("CN=E2E LoTL signer"),
    createTestSigner("CN=E2E DE signer"),
    createTestSigner("CN=E2E PID CA"),
    createTestSigner("CN=E2E old CA"),
    createTestSigner("CN=E2E stranger"),
  ]);
  const routes = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const body = routes.get(req.url ?? "");
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/vnd.etsi.tsl+xml" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const since = new Date(Date.now() - 10 * DAY);
  const deList = signTrustedListXml(
    buildTrustedListXml({
      territory: "DE",
      sequenceNumber: 1,
      providers: [
        {
          name: "E2E TSP",
          services: [
            {
              type: SERVICE_TYPE.pidIssuance,
              status: SERVICE_STATUS.granted,
              statusStartingTime: since,
              certificatesBase64: [pidCa.certificateBase64],
              name: "E2E PID CA",
            },
            {
              type: SERVICE_TYPE.caQc,
              status: SERVICE_STATUS.withdrawn,
              statusStartingTime: since,
              certificatesBase64: [oldCa.certificateBase64],
              name: "E2E old CA",
            },
          ],
        },
      ],
    }),
    deSigner,
  );
  const lotl = (signer: TestSigner) =>
    signTrustedListXml(
      buildTrustedListXml({
        territory: "EU",
        listType: "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists",
        pointers: [
          {
            location: `${base}/de.xml`,
            territory: "DE",
            signerCertificatesBase64: [deSigner.certificateBase64],
          },
        ],
      }),
      signer,
    );
  routes.set("/de.xml", deList);
  routes.set("/lotl.xml", lotl(lotlSigner));
  const description = unique("E2E LoTL");
  const issuer = await activeIssuer();

  try {
    await signIn(page);
    await page.getByRole("link", { name: "Trust sources" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Trust sources" })).toBeVisible();

    // A LoTL under a signer that did not sign it is refused, and nothing is stored.
    const form = page.getByRole("form", { name: "Add a trust source" });
    await form.getByLabel("Kind").selectOption("lotl");
    await form.getByLabel("List URL (https)").fill(`${base}/lotl.xml`);
    await form.getByLabel("Signer certificates (PEM; one or more)").fill(stranger.certificatePem);
    await form.getByLabel("Description (optional)").fill(description);
    await form.getByRole("button", { name: "Add trust source" }).click();
    const refusal = form.getByRole("alert");
    await expect(refusal).toContainText("Could not add the trust source");
    await expect(refusal).toContainText("not an expected signer");
    await expect(refusal).toContainText("TrustListRefused");

    // With its own signer it is fetched, verified and opened.
    await form.getByLabel("Signer certificates (PEM; one or more)").fill(lotlSigner.certificatePem);
    await form.getByLabel("Refresh every (minutes)").fill("60");
    await form.getByRole("button", { name: "Add trust source" }).click();
    await expect(page.getByRole("heading", { level: 1, name: description })).toBeVisible();
    const trustSourceId = page.url().split("/").pop()!;
    expect(trustSourceId).toMatch(/^ts_/);
    await expect(page.getByTestId("trust-source-status")).toHaveText("current");
    await expect(page.getByTestId("trust-source")).toContainText("Every 60 minutes");
    const lists = page.getByTestId("trust-source-lists-table");
    await expect(lists.getByRole("row")).toHaveCount(3);
    await expect(lists).toContainText(`${base}/lotl.xml`);
    await expect(lists).toContainText(`${base}/de.xml`);

    const services = page.getByTestId("trust-source-services-table");
    const pidRow = services.getByRole("row", { name: /E2E PID CA/ });
    await expect(pidRow).toContainText("PID/Issuance");
    await expect(pidRow).toContainText("granted");
    await expect(pidRow).toContainText("yes");
    await expect(pidRow).toContainText("CN=E2E PID CA");
    const oldRow = services.getByRole("row", { name: /E2E old CA/ });
    await expect(oldRow).toContainText("withdrawn");
    await expect(oldRow).toContainText("no");
    await page.getByLabel("Service type").selectOption(SERVICE_TYPE.caQc);
    await expect(services.getByRole("row", { name: /E2E PID CA/ })).toHaveCount(0);
    await expect(services.getByRole("row", { name: /E2E old CA/ })).toBeVisible();
    await page.getByLabel("Service type").selectOption("");

    // Refresh now: verified again; then the LoTL is served signed by someone else: refused, the last good
    // copy is kept (stale) and the reason is recorded.
    await page.getByRole("button", { name: "Refresh now" }).click();
    await expect(page.getByText("The lists were fetched and verified again.")).toBeVisible();
    routes.set("/lotl.xml", lotl(stranger));
    await page.getByRole("button", { name: "Refresh now" }).click();
    await expect(page.getByTestId("trust-source").getByRole("alert")).toContainText(
      "The refresh was refused",
    );
    await expect(page.getByTestId("trust-source-status")).toHaveText("stale");
    await expect(page.getByTestId("trust-source-last-error")).toContainText("UnknownSigner");
    await expect(services.getByRole("row", { name: /E2E PID CA/ })).toBeVisible();

    await page.getByRole("link", { name: "← Trust sources" }).click();
    const row = page.getByTestId(`trust-source-${trustSourceId}`);
    await expect(row).toContainText(description);
    await expect(row).toContainText("stale");
    await expect(row).toContainText("Last refresh failed: UnknownSigner");
    routes.set("/lotl.xml", lotl(lotlSigner));

    // A verification policy trusting issuers the trust source names as PID providers.
    const policyIdentifier = unique("ts-policy");
    await page.getByRole("link", { name: "Verification policies" }).click();
    const policyForm = page.getByRole("form", { name: "Create a verification policy" });
    await policyForm.getByLabel("Identifier").fill(policyIdentifier);
    await policyForm.getByLabel("Display name").fill("PID through a trusted list");
    await policyForm.getByLabel("Credential").selectOption({ label: `Badge (${issuer.configuration})` });
    await policyForm.getByLabel("given_name").check();
    await policyForm.getByRole("combobox", { name: "Trust", exact: true }).selectOption("trustSource");
    await policyForm.getByRole("combobox", { name: "Trust source", exact: true }).selectOption(trustSourceId);
    await expect(policyForm.getByLabel("Service type (URI)")).toHaveValue(SERVICE_TYPE.pidIssuance);
    await policyForm.getByRole("button", { name: "Create policy" }).click();
    await expect(page.getByTestId(`policy-${policyIdentifier}`)).toContainText("active");
    const { data: stored } = await cred().get("/management/verification-policies/{policyIdentifier}", {
      params: { path: { policyIdentifier } },
    });
    expect(stored.rules.credentials[0]?.trustedIssuers).toEqual([
      { trustSourceId, serviceType: SERVICE_TYPE.pidIssuance },
    ]);

    // The issuer trusts wallet providers from the trust source, with no pasted root.
    await page.goto(`/issuers/${issuer.issuerId}`);
    const walletForm = page.getByRole("form", { name: "Wallet attestation settings" });
    await walletForm.getByLabel(/Also trust attesters from a trust source/).check();
    await walletForm.getByRole("combobox", { name: "Trust source", exact: true }).selectOption(trustSourceId);
    await walletForm.getByLabel("Service type (URI)").fill(SERVICE_TYPE.pidIssuance);
    await walletForm.getByRole("button", { name: "Save" }).click();
    await expect(walletForm).toContainText("Wallet attestation settings saved.");
    await expect(page.getByTestId("wallet-attestation")).toContainText("0 roots and 1 trust source");
    const { data: storedIssuer } = await cred().get("/management/issuers/{issuerId}", {
      params: { path: { issuerId: issuer.issuerId } },
    });
    expect(storedIssuer.walletAttestation?.trustSources).toEqual([
      { trustSourceId, serviceType: SERVICE_TYPE.pidIssuance },
    ]);

    // Deleting it: back to the list, where it is gone.
    await page.goto(`/trust-sources/${trustSourceId}`);
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Delete trust source" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Trust sources" })).toBeVisible();
    await expect(page.getByTestId(`trust-source-${trustSourceId}`)).toHaveCount(0);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
