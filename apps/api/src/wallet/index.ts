import type { AppDeps } from "@cred/core";
import type { FastifyInstance } from "fastify";
import { registerIssuanceWalletRoutes } from "./issuance-routes";
import { registerVerificationWalletRoutes } from "./verification-routes";

/** Wallet-facing protocol endpoints (OpenID4VCI, OpenID4VP, status lists, .well-known). */
export function registerWalletRoutes(app: FastifyInstance, deps: AppDeps) {
  registerIssuanceWalletRoutes(app, deps);
  registerVerificationWalletRoutes(app, deps);
}
