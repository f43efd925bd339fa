import type { AppDeps } from "@cred/core";
import type { FastifyInstance } from "fastify";

export function registerVerificationWalletRoutes(_app: FastifyInstance, _deps: AppDeps) {}
