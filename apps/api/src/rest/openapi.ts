import { eventCatalogueOpenApi } from "@cred/contracts/webhook-event-catalogue";
import { appRouter, ERROR_STATUS } from "@cred/core";
import { generateOpenApiDocument } from "trpc-to-openapi";
import { API_INTRODUCTION, PRODUCT_NAME } from "./api-introduction";
import { SUPPORTED_API_VERSION } from "./mount-rest";
import { REST_OPERATIONS } from "./operations";

const STATUS_TEXT: Record<number, string> = {
  400: "The request was not valid.",
  401: "Authentication failed: the API key is missing, malformed, revoked or expired.",
  403: "Authenticated, but the key does not carry the required scope.",
  404: "Not visible to this caller. A resource in another tenant or environment reports as not found.",
  409: "The request conflicts with the resource state, or an idempotency key was reused with a different payload.",
  429: "Throttled. Retry after the number of seconds in Retry-After.",
  503: "KeyCustodyUnavailable: the key store (a PKCS#11 token) holding a key this operation needs cannot be reached; nothing was changed. Retry after the number of seconds in Retry-After.",
};

const errorEnvelopeSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      description: "What went wrong.",
      required: ["code", "message", "requestId"],
      properties: {
        code: {
          type: "string",
          description: "Stable PascalCase error code.",
          enum: Object.keys(ERROR_STATUS),
          example: "ValidationFailed",
        },
        message: {
          type: "string",
          description: "Human-readable explanation.",
          example: "The request is not valid.",
        },
        requestId: {
          type: "string",
          description: "Quote this in support requests (equals x-ms-request-id).",
        },
        details: {
          type: "array",
          description: "One entry per offending field, when the error concerns input.",
          items: {
            type: "object",
            required: ["code", "target", "message"],
            properties: {
              code: { type: "string", description: "What is wrong with the field.", example: "InvalidValue" },
              target: {
                type: "string",
                description: "Path of the offending field.",
                example: "claims.birthdate",
              },
              message: { type: "string", description: "Human-readable explanation." },
            },
          },
        },
      },
    },
  },
} as const;

/**
 * OpenAPI 3.1 of both planes, with the spec's operation ids, statuses and the ErrorEnvelope. Its server
 * is relative ("/": the origin the document was read from), so "Try it out" in /docs calls the API that
 * served the page, wherever it runs, rather than a fixed host.
 */
export function buildOpenApiDocument(baseUrl = "/"): Record<string, any> {
  const doc = generateOpenApiDocument(appRouter, {
    title: `${PRODUCT_NAME} API`,
    version: SUPPORTED_API_VERSION,
    baseUrl,
    description: API_INTRODUCTION,
    securitySchemes: {
      ApiKey: {
        type: "apiKey",
        in: "header",
        name: "Authorization",
        description:
          "`Authorization: ApiKey <key>`. In the interactive reference (/docs), paste the key alone into Authorize: the page sends it with `ApiKey ` in front.",
      },
    },
  }) as unknown as Record<string, any>;

  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas.ErrorEnvelope = errorEnvelopeSchema;
  doc.components.parameters = {
    ApiVersion: {
      name: "api-version",
      in: "query",
      required: true,
      description: "Management API version.",
      schema: { type: "string", enum: [SUPPORTED_API_VERSION] },
    },
    ClientRequestId: {
      name: "x-ms-client-request-id",
      in: "header",
      required: false,
      description: "Caller's own request id; echoed back and logged, never used for anything else.",
      schema: { type: "string", maxLength: 128 },
    },
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "Replays the original result for a repeated request with the same payload for 24 hours.",
      schema: { type: "string", maxLength: 255 },
    },
  };
  doc.components.headers = {
    RequestId: { description: "Request id; quote it in support requests.", schema: { type: "string" } },
    ClientRequestId: {
      description: "The caller's `x-ms-client-request-id`, echoed when it was header-safe.",
      schema: { type: "string" },
    },
    CorrelationId: {
      description: "Product plane: the caller's `X-Correlation-Id`, echoed, or a generated one.",
      schema: { type: "string" },
    },
    ProductRequestId: { description: "Product plane: the request id again.", schema: { type: "string" } },
    RateLimit: {
      description: 'The key\'s remaining budget (IETF RateLimit header draft), e.g. `"default";r=1999;t=1`.',
      schema: { type: "string" },
    },
    RateLimitPolicy: {
      description: 'The key\'s budget, e.g. `"default";q=2000;w=1`.',
      schema: { type: "string" },
    },
    IdempotentReplayed: {
      description:
        "`true` when this is the stored result of an earlier request with the same Idempotency-Key.",
      schema: { type: "string", enum: ["true"] },
    },
  };
  /** Headers every response of an operation on `path` may carry. */
  const commonHeaders = (path: string) => ({
    "x-ms-request-id": { $ref: "#/components/headers/RequestId" },
    "x-ms-client-request-id": { $ref: "#/components/headers/ClientRequestId" },
    ...(path.startsWith("/v1.0/")
      ? {
          "X-Correlation-Id": { $ref: "#/components/headers/CorrelationId" },
          "X-Request-Id": { $ref: "#/components/headers/ProductRequestId" },
        }
      : {}),
  });
  const errorResponse = (status: number, path: string) => ({
    description: STATUS_TEXT[status] ?? "Error.",
    headers: {
      ...commonHeaders(path),
      ...(status === 429 || status === 503
        ? { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } }
        : {}),
    },
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  });

  for (const op of REST_OPERATIONS) {
    const path = op.path;
    const operation = doc.paths?.[path]?.[op.method.toLowerCase()];
    if (!operation) continue;
    operation.security = [{ ApiKey: [] }];
    const scopes = op.meta.scopes ?? [];
    if (scopes.length > 0) {
      // API keys carry scopes, not OAuth ones, so they are stated beside the security requirement.
      operation["x-required-scopes"] = scopes;
      const all = op.meta.scopeMatch === "all";
      if (all) operation["x-required-scopes-match"] = "all";
      const named = scopes.map((scope) => `\`${scope}\``).join(all ? " and " : " or ");
      operation.description =
        `${operation.description ?? ""}\n\nRequires the API key scope${all ? "s" : ""} ${named}.`.trim();
    }
    const success = operation.responses["200"];
    // A streamed answer (one item per line): the schema stated is each line's.
    if (success && op.meta.responseMediaType) {
      success.content = { [op.meta.responseMediaType]: success.content["application/json"] };
    }
    const successStatus = String(op.meta.successStatus ?? 200);
    const responses: Record<string, unknown> = {};
    if (success) {
      success.headers = {
        ...commonHeaders(path),
        RateLimit: { $ref: "#/components/headers/RateLimit" },
        "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
        ...(op.meta.idempotent
          ? { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } }
          : {}),
      };
      responses[successStatus] = success;
    }
    for (const status of op.meta.errorStatuses ?? [400, 401, 403, 429]) {
      responses[String(status)] = errorResponse(status, path);
    }
    operation.responses = responses;
    operation.parameters ??= [];
    const params = operation.parameters as Record<string, unknown>[];
    params.push({ $ref: "#/components/parameters/ClientRequestId" });
    if (path.startsWith("/management/")) params.unshift({ $ref: "#/components/parameters/ApiVersion" });
    if (op.meta.idempotent) params.push({ $ref: "#/components/parameters/IdempotencyKey" });
  }
  // The event catalogue: one schema per webhook body, and the OpenAPI 3.1 `webhooks` section.
  const events = eventCatalogueOpenApi();
  Object.assign(doc.components.schemas, events.schemas);
  doc.webhooks = events.webhooks;
  // Remove the library's own error schemas: clients only ever see the ErrorEnvelope.
  for (const name of Object.keys(doc.components.schemas)) {
    if (name.startsWith("error.")) delete doc.components.schemas[name];
  }
  return doc;
}
