import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { apiOrigin, bootstrapCredentials, signIn, unique } from "../support/env";

/** What a new staff user ran into on a first day with the console (issue #25). */

const root = path.resolve(import.meta.dirname, "../..");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** A second console server (the build the runner made) whose API_ORIGIN points at `apiUrl`. */
async function startConsole(apiUrl: string): Promise<{ origin: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["apps/console/scripts/server.mjs"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      CONSOLE_PORT: String(port),
      CONSOLE_HOST: "127.0.0.1",
      API_ORIGIN: apiUrl,
    },
    stdio: "ignore",
  });
  const origin = `http://127.0.0.1:${port}`;
  await expect(async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
  }).toPass({ timeout: 60_000 });
  return { origin, process: child };
}

/** A TCP relay on `port` to the real API: the API "coming back" at the address the console was given. */
function relayToApi(port: number): Promise<net.Server> {
  const target = new URL(apiOrigin());
  const relay = net.createServer((socket) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    relay.listen(port, "127.0.0.1", () => resolve(relay));
    relay.on("error", reject);
  });
}

/** What a gateway in front of a restarting API answers: an HTML error page. */
function htmlGateway(port: number): Promise<http.Server> {
  const gateway = http.createServer((_request, response) => {
    response.writeHead(502, { "content-type": "text/html", connection: "close" });
    response.end("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>");
  });
  return new Promise((resolve, reject) => {
    gateway.listen(port, "127.0.0.1", () => resolve(gateway));
    gateway.on("error", reject);
  });
}

async function fillSignIn(page: Page) {
  const { consoleEmail, consolePassword } = bootstrapCredentials();
  await page.getByLabel("Email address").fill(consoleEmail);
  await page.getByLabel("Password").fill(consolePassword);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("the country is chosen by name and saved as its ISO 3166-1 alpha-2 code", async ({ page }, testInfo) => {
  await signIn(page);
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Organisations", exact: true })
    .click();
  const country = page.getByRole("combobox", { name: "Country (optional)" });
  await expect(country).toBeVisible();
  // Names, not guessed codes: "Netherlands" is NL, and NE is Niger.
  await country.selectOption({ label: "Netherlands" });
  await expect(country).toHaveValue("NL");
  await expect(country.locator('option[value="NE"]')).toHaveText("Niger");
  // Only assigned codes are offered (ZZ is user-assigned, EU an exceptional reservation).
  await expect(country.locator('option[value="ZZ"], option[value="EU"]')).toHaveCount(0);
  expect(await country.locator("option").count()).toBeGreaterThan(240);

  const reference = unique("country");
  await page.getByLabel("Reference").fill(reference);
  await page.getByLabel("Display name").fill(`Dutch ${reference}`);
  await page.getByRole("button", { name: "Create organisation" }).click();
  await expect(page.getByText(`Organisation ${reference} created.`)).toBeVisible();
  await expect(country).toHaveValue("");
  const row = page.getByRole("row").filter({ hasText: reference });
  await expect(row.getByRole("cell").nth(2)).toHaveText("Netherlands (NL)");
  await page.screenshot({ path: testInfo.outputPath("organisation-country.png"), fullPage: true });
});

test("with the API down the console names the API it cannot reach, and Retry gets through once it is back", async ({
  page,
}, testInfo) => {
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const unreachable = `The API at ${apiUrl} is not reachable`;
  const second = await startConsole(apiUrl);
  let relay: net.Server | undefined;
  let gateway: http.Server | undefined;
  try {
    // Inside the console shell…
    await page.goto(`${second.origin}/dashboard`);
    await expect(page.getByRole("alert").filter({ hasText: unreachable })).toBeVisible();
    await expect(page.getByText(/JSON|Unexpected token|Unable to transform/)).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();

    // …and on the sign-in page.
    await page.goto(`${second.origin}/`);
    await expect(page.getByRole("alert").filter({ hasText: unreachable })).toBeVisible();
    await expect(page.getByText(/JSON|Unexpected token|Unable to transform/)).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath("api-unreachable.png"), fullPage: true });

    // Something else answering there (a gateway's HTML page while the API restarts) is no API either:
    // the same sentence, not a JSON parse error from reading that page as the API's answer.
    gateway = await htmlGateway(apiPort);
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(page.getByRole("alert").filter({ hasText: unreachable })).toContainText("HTTP 502");
    await expect(page.getByText(/JSON|Unexpected token|Unable to transform/)).toHaveCount(0);
    gateway.closeAllConnections();
    await new Promise((resolve) => gateway?.close(resolve));
    gateway = undefined;

    // Once it answers, Retry brings the sign-in form.
    relay = await relayToApi(apiPort);
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await expect(page.getByText(unreachable)).toHaveCount(0);
    await fillSignIn(page);
    await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
  } finally {
    second.process.kill("SIGTERM");
    relay?.close();
    gateway?.close();
  }
});

test("an unknown address shows the console's own not-found page with a way home", async ({
  page,
}, testInfo) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByText("Credential Platform")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("not-found.png"), fullPage: true });
  await page.getByRole("link", { name: "Go to the console home" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
});

test("the console has a favicon", async ({ page, request }) => {
  await page.goto("/");
  const icon = page.locator('head link[rel="icon"]').first();
  await expect(icon).toHaveAttribute("href", /.+/);
  const href = (await icon.getAttribute("href")) ?? "";
  const linked = await request.get(href);
  expect(linked.status()).toBe(200);
  expect(linked.headers()["content-type"]).toMatch(/^image\//);
  // What browsers and tools ask for without reading the page.
  const favicon = await request.get("/favicon.ico");
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()["content-type"]).toMatch(/^image\//);
});

test("production is marked across the header; sandbox is not", async ({ page }, testInfo) => {
  await signIn(page);
  const banner = page.getByRole("banner").getByTestId("env-banner");
  await expect(page.getByTestId("env-banner")).toHaveCount(0);
  await page.getByLabel("Environment").selectOption("production");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("Production");
  await page.screenshot({ path: testInfo.outputPath("production-banner.png"), fullPage: true });
  await page.getByLabel("Environment").selectOption("sandbox");
  await expect(page.getByTestId("env-banner")).toHaveCount(0);
});

test("signing in returns to the page asked for, and never to another site", async ({ page }) => {
  await page.goto("/issuers?pageSize=2");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await fillSignIn(page);
  await expect(page.getByRole("heading", { level: 1, name: "Issuers" })).toBeVisible();
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/issuers?pageSize=2");

  const consoleOrigin = new URL(page.url()).origin;
  for (const next of ["https://example.org/phish", "//example.org/phish", "/\\example.org/phish"]) {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await page.goto(`/?next=${encodeURIComponent(next)}`);
    await fillSignIn(page);
    await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
    expect(new URL(page.url()).origin).toBe(consoleOrigin);
    expect(new URL(page.url()).pathname).toBe("/dashboard");
  }
});
