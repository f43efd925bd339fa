import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { PRODUCT_NAME } from "./api-introduction";
import { completeApiKeyAuthorization } from "./docs-authorization";
import { buildOpenApiDocument } from "./openapi";

/** A text logo of the product's name for the reference's top bar (white, as Swagger UI's own). */
function productLogo(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="260" height="40" viewBox="0 0 260 40"><text x="0" y="27" font-family="sans-serif" font-size="20" font-weight="bold" fill="#ffffff">${PRODUCT_NAME} API</text></svg>`;
}

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
    // The product's name in the tab and the top bar, in place of Swagger UI's own.
    theme: { title: `${PRODUCT_NAME} API reference` },
    logo: { type: "image/svg+xml", content: productLogo(), href: "/docs" },
    uiConfig: { deepLinking: true, requestInterceptor: completeApiKeyAuthorization },
  });
}
