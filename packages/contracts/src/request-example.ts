import { z } from "zod";

/**
 * Gives a request schema the example of its whole body: OpenAPI `examples`, which trpc-to-openapi keeps
 * on the body it derives from the schema, and which the interactive reference (/docs) puts into "Try it
 * out". It must be a valid first call as it stands (apps/api/test/openapi-examples.test.ts sends every
 * one): path parameters, named in `pathParameters`, are not part of the body and so not of the example.
 * The metadata is registered on the schema itself, next to what it already has, so its declaration
 * stays as it is.
 */
export function registerRequestExample<S extends z.ZodObject, P extends keyof z.input<S> & string = never>(
  schema: S,
  pathParameters: readonly P[],
  example: Omit<z.input<S>, P>,
): void {
  const inBody = pathParameters.filter((name) => name in (example as object));
  if (inBody.length > 0) throw new Error(`A body example holds path parameters: ${inBody.join(", ")}`);
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), examples: [example] });
}
