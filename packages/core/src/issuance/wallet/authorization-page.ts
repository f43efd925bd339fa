import type { TAuthorizationPage } from "../../issuers/issuer.schema";

/** The issuer's authorization page (`authorizationPage`), or null when wallets get their code at once. */
export function authorizationPageOf(issuer: { authorizationPage: unknown }): TAuthorizationPage | null {
  const page = issuer.authorizationPage as TAuthorizationPage | null;
  return page && typeof page.url === "string" ? page : null;
}

/** Where the authorization endpoint sends the person: the page, with the interaction handle and the transaction. */
export function authorizationPageUrl(page: TAuthorizationPage, interaction: string, transactionId: string) {
  const url = new URL(page.url);
  url.searchParams.set("interaction", interaction);
  url.searchParams.set("transaction_id", transactionId);
  return url.toString();
}
