import { describe, it, type TestFunction } from "vitest";

/**
 * Tests that run on one database only, skipped on the other with the reason in their name: `pnpm test`
 * ends with every skipped test and its reason, a trailing `[reason]` in the name of the test or of its
 * suite (scripts/test-summary/summary.mjs, docs/testing.md).
 */
const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
export const POSTGRES_ONLY = "[PostgreSQL only: runs when TEST_POSTGRES_URL is set]";
export const EMBEDDED_ONLY = "[embedded database only: skipped in the PostgreSQL pass]";

export const describeOnPostgres = (name: string, fn: () => void) =>
  describe.skipIf(!onPostgres)(`${name} ${POSTGRES_ONLY}`, fn);
export const describeOnEmbedded = (name: string, fn: () => void) =>
  describe.skipIf(onPostgres)(`${name} ${EMBEDDED_ONLY}`, fn);
export const itOnPostgres = (name: string, fn: TestFunction, timeout?: number) =>
  it.skipIf(!onPostgres)(`${name} ${POSTGRES_ONLY}`, fn, timeout);
export const itOnEmbedded = (name: string, fn: TestFunction, timeout?: number) =>
  it.skipIf(onPostgres)(`${name} ${EMBEDDED_ONLY}`, fn, timeout);
