import type { OperationMeta } from "@cred/core";
import { appRouter } from "@cred/core";
import type { AnyProcedure } from "@trpc/server";

export interface RestOperation {
  method: string;
  path: string;
  /** The procedure's key in the app router (`issuers.create`). */
  procedurePath: string;
  procedure: AnyProcedure;
  /** The path as the 405/OPTIONS answers and storable-text check read it (a trailing slash allowed). */
  pattern: RegExp;
  /** The path as requests are dispatched on it: named groups for its `{parameters}`, any letter case. */
  dispatchPattern: RegExp;
  meta: OperationMeta;
}

function toPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((seg) => (/^\{.+\}$/.test(seg) ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/** As trpc-to-openapi matched paths before: parameters as named groups, case-insensitive. */
function toDispatchPattern(path: string): RegExp {
  return new RegExp(`^${normalizePath(path).replace(/\{(.+?)\}/g, (_, key) => `(?<${key}>[^/]+)`)}$`, "i");
}

/** `/a/b/` and `a/b` as `/a/b`. */
export function normalizePath(path: string): string {
  return `/${path.replace(/^\/|\/$/g, "")}`;
}

/** Every REST operation of the router, read from procedure meta (one source of truth), in router order. */
export const REST_OPERATIONS: RestOperation[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, AnyProcedure>,
).flatMap(([procedurePath, procedure]) => {
  const meta = procedure._def.meta as OperationMeta | undefined;
  if (!meta?.openapi || procedure._def.type === "subscription") return [];
  const { method, path } = meta.openapi;
  return [
    {
      method,
      path,
      procedurePath,
      procedure,
      pattern: toPattern(path),
      dispatchPattern: toDispatchPattern(path),
      meta,
    },
  ];
});

/** Methods that exist for a concrete path (for 405 + Allow). */
export function methodsForPath(path: string): string[] {
  return REST_OPERATIONS.filter((op) => op.pattern.test(path)).map((op) => op.method);
}

/** The name of the path parameter at segment `index` of a REST path (`{issuerId}` → `issuerId`), if any. */
export function pathParameterAt(path: string, index: number): string | undefined {
  const segment = REST_OPERATIONS.find((op) => op.pattern.test(path))?.path.split("/")[index];
  return segment && /^\{.+\}$/.test(segment) ? segment.slice(1, -1) : undefined;
}

/** The operation a request runs (first in router order), with its path parameters as sent (not decoded). */
export function operationFor(
  method: string,
  pathname: string,
): { operation: RestOperation; pathInput: Record<string, string> } | undefined {
  const path = normalizePath(pathname);
  for (const operation of REST_OPERATIONS) {
    if (operation.method !== method) continue;
    const match = operation.dispatchPattern.exec(path);
    if (match) return { operation, pathInput: { ...match.groups } };
  }
  return undefined;
}
