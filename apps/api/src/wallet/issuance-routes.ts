import type { AppDeps } from "@cred/core";
import type { FastifyInstance } from "fastify";

export function registerIssuanceWalletRoutes(_app: FastifyInstance, _deps: AppDeps) {}
