import type { AnyProcedure } from "@trpc/server";
import {
  coerceSchema,
  getInputOutputParsers,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  unwrapZodType,
  zodSupportsCoerce,
} from "trpc-to-openapi";
import { ZodArray } from "zod/v4";

interface InputShape {
  /** The procedure takes no input (z.void()): it gets `undefined`. */
  takesNothing: boolean;
  /** Query parameters whose schema is an array: one value arrives as a string, the schema wants a list. */
  arrayKeys: string[];
}

const shapes = new WeakMap<AnyProcedure, InputShape>();

/**
 * How an operation reads its input from a request, as trpc-to-openapi's adapter read it: query
 * strings of an object schema are coerced (numbers, booleans, dates; the schema is marked in place,
 * once, on its first query), JSON bodies never are.
 */
function inputShapeOf(procedure: AnyProcedure, fromQuery: boolean): InputShape {
  const known = shapes.get(procedure);
  if (known) return known;
  const { inputParser } = getInputOutputParsers(procedure as never);
  const schema = unwrapZodType(inputParser as never, true) as any;
  const arrayKeys: string[] = [];
  if (fromQuery && zodSupportsCoerce && instanceofZodTypeObject(schema)) {
    for (const [key, field] of Object.entries(schema.shape as Record<string, any>)) {
      const isArray =
        field instanceof ZodArray || (instanceofZodTypeOptional(field) && field.unwrap() instanceof ZodArray);
      if (isArray) arrayKeys.push(key);
    }
    coerceSchema(schema);
  }
  const shape = { takesNothing: instanceofZodTypeLikeVoid(schema), arrayKeys };
  shapes.set(procedure, shape);
  return shape;
}

/** Each query parameter once as a string, a repeated one as the list of its values. */
function queryOf(url: URL): Record<string, string | string[]> {
  const values: Record<string, string[]> = {};
  url.searchParams.forEach((value, key) => {
    values[key] ??= [];
    values[key].push(value);
  });
  const query: Record<string, string | string[]> = {};
  for (const [key, list] of Object.entries(values)) query[key] = list.length === 1 ? list[0]! : list;
  return query;
}

/**
 * The procedure input of a REST request: the JSON body (POST, PUT, PATCH) or the query string (GET,
 * DELETE), with the path parameters over it.
 */
export function operationInput(
  procedure: AnyProcedure,
  request: { method: string; url: URL; body: unknown },
  pathInput: Record<string, string>,
): unknown {
  const fromQuery = request.method === "GET" || request.method === "DELETE";
  const shape = inputShapeOf(procedure, fromQuery);
  if (shape.takesNothing) return undefined;
  const input: Record<string, unknown> = {
    ...(fromQuery ? queryOf(request.url) : (request.body as object)),
    ...pathInput,
  };
  for (const key of shape.arrayKeys) {
    if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  }
  return input;
}
