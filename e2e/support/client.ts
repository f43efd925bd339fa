import { type CredClient, createCredClient } from "@cred/sdk";
import { apiOrigin, bootstrapCredentials } from "./env";

let client: CredClient | undefined;

/**
 * The SDK (@cred/sdk) on the bootstrap API key (sandbox, every scope), as an integrator calls the API:
 * typed calls that return the body of a 2xx and throw CredApiError otherwise. Made on first use, once
 * the API has written its bootstrap file.
 */
export function cred(): CredClient {
  client ??= createCredClient({ baseUrl: apiOrigin(), apiKey: bootstrapCredentials().apiKey });
  return client;
}
