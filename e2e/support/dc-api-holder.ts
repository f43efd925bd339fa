import { answerDcApiRequest } from "@cred/oid4vc";
import type { Page } from "@playwright/test";
import type { Issued } from "./records";

/** What the holder saw of one request it answered. */
export interface HolderAnswer {
  protocol: string;
  responseMode: unknown;
}

/**
 * Supplies the wallet side of the Digital Credentials API on `page`: an init script in which
 * `navigator.credentials.get` hands the page's first digital request, with the page's origin as a
 * browser would, to the test holder (answerDcApiRequest, the holder code of the HTTP tests) holding
 * `issued`, and returns its `{ protocol, data }` as a DigitalCredential. Returns what the holder saw, in
 * order, for the test to check.
 */
export async function answerAsDcApiHolder(page: Page, issued: Issued): Promise<HolderAnswer[]> {
  const seen: HolderAnswer[] = [];
  await page.exposeFunction(
    "__holderAnswer",
    async (request: { protocol: string; data: unknown }, origin: string) => {
      const answer = await answerDcApiRequest({
        request,
        origin,
        credential: issued.credential,
        holderPrivateKey: issued.holderPrivateKey,
      });
      seen.push({ protocol: answer.protocol, responseMode: answer.request.response_mode });
      return { protocol: answer.protocol, data: answer.data };
    },
  );
  await page.addInitScript(() => {
    const w = window as unknown as Record<string, unknown>;
    w.DigitalCredential ??= class DigitalCredential {};
    Object.defineProperty(navigator.credentials, "get", {
      configurable: true,
      value: async (options: { digital?: { requests?: unknown[] } }) => {
        const request = options.digital?.requests?.[0];
        const answer = (await (w.__holderAnswer as (r: unknown, o: string) => Promise<unknown>)(
          request,
          location.origin,
        )) as { protocol: string; data: unknown };
        return { type: "digital", protocol: answer.protocol, data: answer.data };
      },
    });
  });
  return seen;
}
