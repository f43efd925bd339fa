import fs from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";

/** The API the console talks to (wallet endpoints live there too). */
export const apiOrigin = () => `http://127.0.0.1:${process.env.E2E_API_PORT}`;

export interface BootstrapCredentials {
  tenantId: string;
  apiKey: string;
  consoleEmail: string;
  consolePassword: string;
}

/** What the API wrote on its first start into the test's fresh DATA_DIR. */
export function bootstrapCredentials(): BootstrapCredentials {
  const file = path.join(process.env.E2E_DATA_DIR ?? "", "bootstrap.json");
  return JSON.parse(fs.readFileSync(file, "utf8")) as BootstrapCredentials;
}

export async function signIn(page: Page) {
  const { consoleEmail, consolePassword } = bootstrapCredentials();
  await page.goto("/");
  await page.getByLabel("Email address").fill(consoleEmail);
  await page.getByLabel("Password").fill(consolePassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
}

/** A unique suffix so tests can run against one database in any order. */
export const unique = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
