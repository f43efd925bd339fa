import { appRouter } from "@cred/core";
import type { OperationMeta } from "@cred/core/rpc/trpc";

export interface RestOperation {
  method: string;
  path: string;
  pattern: RegExp;
  meta: OperationMeta;
}

function toPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((seg) => (/^\{.+\}$/.test(seg) ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/** Every REST operation of the router, read from procedure meta (one source of truth). */
export const REST_OPERATIONS: RestOperation[] = Object.values(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: OperationMeta } }>,
).flatMap((procedure) => {
  const meta = procedure._def.meta;
  if (!meta?.openapi) return [];
  return [
    { method: meta.openapi.method, path: meta.openapi.path, pattern: toPattern(meta.openapi.path), meta },
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
