import { createTestAccessCa, createTestRegistrar } from "@cred/oid4vc";
import { expect, test } from "@playwright/test";
import { signIn } from "../support/env";

const OUR_ID = "VATFI-12345678";

/**
 * The verifier-certificate page's relying-party certificates: a signing request made from the form shows
 * its PEM CSR; the chain a test access CA issues for it is imported with the CA's root; then a registration
 * certificate from a test registrar is uploaded, shown (relying party, credentials and claims, expiry) and
 * removed.
 */
test("verifier-certificate page: access certificate from a CSR, registration certificate uploaded, shown and removed", async ({
  page,
}) => {
  const accessCa = await createTestAccessCa();
  const registrar = await createTestRegistrar();
  await signIn(page);
  await page.goto("/verifier-certificate");
  const access = page.getByTestId("access-certificate");
  await expect(access.getByRole("heading", { name: "Access certificate" })).toBeVisible();

  await access.getByLabel("Organisation name (O)").fill("Webshop Oy");
  await access.getByLabel("Organisation identifier (e.g. VATFI-12345678)").fill(OUR_ID);
  await access.getByLabel("Country (two capital letters)").fill("FI");
  // The API's public host is an IP address here: the CSR has to name a DNS name.
  await access.getByLabel("DNS names (optional; default: the public host)").fill("verifier.example.com");
  await access.getByRole("button", { name: "Create signing request" }).click();
  const pending = page.getByTestId("signing-request");
  await expect(pending).toContainText(`2.5.4.97=${OUR_ID}`);
  const csrPem = (await page.getByTestId("signing-request-pem").textContent())!;
  expect(csrPem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
  const download = page.waitForEvent("download");
  await pending.getByRole("button", { name: "Download CSR" }).click();
  expect((await download).suggestedFilename()).toBe("access-certificate-request.csr");

  // An anchor the chain does not lead to is refused with the API's detail; the CA's root is accepted.
  const chainPem = await accessCa.issue(csrPem);
  await access.getByLabel("Issued certificate chain (PEM, leaf first)").fill(chainPem);
  await access.getByLabel("Access CA trust anchor (PEM)").fill((await createTestAccessCa()).rootPem);
  await access.getByRole("button", { name: "Import" }).click();
  await expect(access.getByRole("alert")).toContainText("Could not import the access certificate");
  await access.getByLabel("Access CA trust anchor (PEM)").fill(accessCa.rootPem);
  await access.getByRole("button", { name: "Import" }).click();
  await expect(access).toContainText("Access certificate imported.");
  await expect(page.getByTestId("access-certificate-organisation")).toContainText(OUR_ID);
  await expect(page.getByTestId("signing-request")).toHaveCount(0);

  const registration = page.getByTestId("registration-certificate");
  await expect(page.getByTestId("no-registration")).toBeVisible();
  const exp = Math.floor(Date.now() / 1000) + 90 * 86_400;
  const jwt = await registrar.sign({
    name: "Webshop",
    sub: { id: [{ type: "VAT", identifier: OUR_ID }] },
    credentials: [
      {
        format: "dc+sd-jwt",
        meta: "urn:eudi:pid:1",
        claim: [{ path: ["given_name"] }, { path: ["family_name"] }],
      },
    ],
    exp,
  });
  await registration.getByLabel("Registration certificate (JWT, typ rc-wrp+jwt)").fill(jwt);
  await registration.getByLabel("Registrar trust anchor (PEM)").fill(registrar.rootPem);
  await registration.getByRole("button", { name: "Upload registration certificate" }).click();
  await expect(registration).toContainText("Registration certificate installed.");
  await expect(page.getByTestId("registration-relying-party")).toContainText(`Webshop — ${OUR_ID}`);
  await expect(page.getByTestId("registration-intermediary")).toContainText("none");
  await expect(page.getByTestId("registration-credentials")).toContainText(
    "dc+sd-jwt urn:eudi:pid:1: given_name, family_name",
  );
  const expiry = page.getByTestId("registration-expiry");
  await expect(expiry).toContainText(String(new Date(exp * 1000).getFullYear()));
  await expect(expiry).not.toContainText("no expiry given");

  page.once("dialog", (dialog) => dialog.accept());
  await registration.getByRole("button", { name: "Remove registration certificate" }).click();
  await expect(registration).toContainText("Registration certificate removed.");
  await expect(page.getByTestId("no-registration")).toBeVisible();
  await expect(page.getByTestId("registration-relying-party")).toHaveCount(0);
});
