import http from "node:http";
import type { AddressInfo } from "node:net";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import { buildTrustedListXml, createTestSigner, signTrustedListXml } from "@cred/oid4vc/trust-lists/testing";
import { expect, test } from "@playwright/test";
import { cred } from "../support/client";
import { signIn, unique } from "../support/env";
import { activeIssuer } from "../support/records";

const DAY = 86_400_000;

/**
 * The trust-source page's edit form (TrustSources_Update) and refresh history (TrustSources_ListRefreshes),
 * and the policy form's client identifier prefix and DID method (docs/api/trust-sources.md,
 * docs/api/verification-policies.md). The list is a test TSL served from loopback, as in trust-sources.spec.ts.
 */
test("trust source: edit its interval, description and signers; see its refresh history; a policy with a did:web client id", async ({
  page,
}) => {
  const [signer, other, ca] = await Promise.all([
    createTestSigner("CN=E2E forms signer"),
    createTestSigner("CN=E2E forms other signer"),
    createTestSigner("CN=E2E forms CA"),
  ]);
  const list = (sequenceNumber: number) =>
    signTrustedListXml(
      buildTrustedListXml({
        territory: "DE",
        sequenceNumber,
        providers: [
          {
            name: "E2E forms TSP",
            services: [
              {
                type: SERVICE_TYPE.pidIssuance,
                status: SERVICE_STATUS.granted,
                statusStartingTime: new Date(Date.now() - 10 * DAY),
                certificatesBase64: [ca.certificateBase64],
                name: "E2E forms CA",
              },
            ],
          },
        ],
      }),
      signer,
    );
  let body: string | undefined = list(1);
  const server = http.createServer((_req, res) => {
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/vnd.etsi.tsl+xml" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsl.xml`;
  const description = unique("E2E forms TSL");
  const issuer = await activeIssuer();

  try {
    const { data: created } = await cred().post("/management/trust-sources", {
      body: { kind: "tsl", url, signerCertificates: [signer.certificatePem], description },
    });
    await signIn(page);
    await page.goto(`/trust-sources/${created.id}`);
    await expect(page.getByRole("heading", { level: 1, name: description })).toBeVisible();

    // The history starts with the create's fetch.
    const history = page.getByTestId("trust-source-refreshes-table");
    await expect(history.getByRole("row")).toHaveCount(2);
    await expect(history).toContainText("create");
    await expect(history).toContainText("verified");

    // A good refresh, then a missing list: recorded newest first, the last good copy kept.
    body = list(2);
    await page.getByRole("button", { name: "Refresh now" }).click();
    await expect(page.getByText("The lists were fetched and verified again.")).toBeVisible();
    body = undefined;
    await page.getByRole("button", { name: "Refresh now" }).click();
    await expect(page.getByTestId("trust-source-status")).toHaveText("stale");
    await expect(history.getByRole("row")).toHaveCount(4);
    const newest = history.getByRole("row").nth(1);
    await expect(newest).toContainText("manual");
    await expect(newest).toContainText("not fetched");
    await expect(newest).toContainText("FetchFailed");
    await expect(newest).toContainText("yes");
    await expect(history.getByRole("row").nth(2)).toContainText("verified");

    // Edit: a new interval and description, and a second signer certificate.
    await page.getByRole("button", { name: "Edit" }).click();
    const form = page.getByRole("form", { name: "Edit trust source" });
    await expect(form.getByRole("button", { name: "Save trust source" })).toBeDisabled();
    await form.getByLabel("Refresh every (minutes)").fill("0");
    await form.getByRole("button", { name: "Save trust source" }).click();
    await expect(form.getByRole("alert")).toContainText("refreshIntervalSeconds");
    await form.getByLabel("Refresh every (minutes)").fill("120");
    const renamed = `${description} (edited)`;
    await form.getByLabel("Description (optional)").fill(renamed);
    const signers = form.getByLabel("Signer certificates (PEM; one or more)");
    await signers.fill(`${await signers.inputValue()}\n${other.certificatePem}`);
    await form.getByRole("button", { name: "Save trust source" }).click();
    await expect(form).toContainText(`Trust source ${renamed} updated.`);
    await expect(page.getByRole("heading", { level: 1, name: renamed })).toBeVisible();
    await expect(page.getByTestId("trust-source")).toContainText("Every 120 minutes");
    const { data: stored } = await cred().get("/management/trust-sources/{trustSourceId}", {
      params: { path: { trustSourceId: created.id } },
    });
    expect(stored).toMatchObject({ refreshIntervalSeconds: 7200, description: renamed, url });
    expect(stored.signerCertificates).toHaveLength(2);
    await form.getByRole("button", { name: "Close" }).click();
    await expect(form).toHaveCount(0);

    // A policy whose verifier is identified by its did:web.
    const policyIdentifier = unique("did-web-policy");
    await page.getByRole("link", { name: "Verification policies" }).click();
    const policyForm = page.getByRole("form", { name: "Create a verification policy" });
    await policyForm.getByLabel("Identifier").fill(policyIdentifier);
    await policyForm.getByLabel("Display name").fill("Identified by did:web");
    await policyForm.getByLabel("Credential").selectOption({ label: `Badge (${issuer.configuration})` });
    await policyForm.getByLabel("given_name").check();
    await expect(policyForm.getByLabel("DID method")).toHaveCount(0);
    await policyForm.getByLabel("Client ID prefix").selectOption("decentralized_identifier");
    await policyForm.getByLabel("DID method").selectOption("web");
    await policyForm.getByRole("button", { name: "Create policy" }).click();
    await expect(page.getByTestId(`policy-${policyIdentifier}`)).toContainText("active");
    const { data: policy } = await cred().get("/management/verification-policies/{policyIdentifier}", {
      params: { path: { policyIdentifier } },
    });
    expect(policy.rules).toMatchObject({ clientIdPrefix: "decentralized_identifier", didMethod: "web" });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
