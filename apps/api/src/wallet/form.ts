import { OAuthError } from "@cred/oid4vc";
import type { FastifyRequest } from "fastify";

/** The form body of an OAuth endpoint; any other body is 400 `invalid_request` (RFC 6749 §3.2, RFC 9126 §2.1). */
export function formOf(request: FastifyRequest, what: string): URLSearchParams {
  if (request.body instanceof URLSearchParams) return request.body;
  throw new OAuthError("invalid_request", `Send the ${what} as application/x-www-form-urlencoded.`);
}
