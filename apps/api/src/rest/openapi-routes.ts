import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { completeApiKeyAuthorization } from "./docs-authorization";
import { buildOpenApiDocument } from "./openapi";

/**
 * `GET /openapi.json` and the interactive reference at `/docs` (assets served locally), where a key
 * pasted into "Authorize" as it was handed out works (docs-authorization.ts).
 */
export async function registerOpenApi(app: FastifyInstance) {
  const document = buildOpenApiDocument();
  app.get("/openapi.json", async () => document);
  await app.register(swagger, { mode: "static", specification: { document: document as any } });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    uiConfig: { deepLinking: true, requestInterceptor: completeApiKeyAuthorization },
  });
}
