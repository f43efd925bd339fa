"use client";
import type { QueryKey } from "@tanstack/react-query";
import type { inferInput, inferOutput } from "@trpc/tanstack-react-query";
import { type Page, type Paged, useAllItems, useCursorPages, usePageSize } from "./paging";
import { useTRPC, useTRPCClient } from "./trpc";

type Trpc = ReturnType<typeof useTRPC>;

/** The routers whose `list` procedure pages by cursor (`limit` and `cursor` in, `{ data, nextCursor }` out). */
export type ListedResource =
  | "organisations"
  | "issuers"
  | "verificationPolicies"
  | "credentialConfigurations"
  | "webhooks"
  | "trustSources"
  | "relyingParties";

type ListProcedure<R extends ListedResource> = Trpc[R]["list"];
export type ItemOf<R extends ListedResource> = inferOutput<ListProcedure<R>>["data"][number];
/** What a list takes besides paging, e.g. `{ status: "active" }` for issuers. */
export type FilterOf<R extends ListedResource> = Omit<inferInput<ListProcedure<R>>, "limit" | "cursor">;

/**
 * A router's list procedure as the hooks below use it. Indexed with a generic router name, the tRPC proxies
 * are a union of procedures TypeScript cannot call, hence the cast to this shape they all share.
 */
interface ListProcedureOf<R extends ListedResource> {
  keys: {
    queryKey: (input: inferInput<ListProcedure<R>>) => QueryKey;
    infiniteQueryKey: (input: inferInput<ListProcedure<R>>) => QueryKey;
  };
  query: (input: inferInput<ListProcedure<R>>, opts: { signal: AbortSignal }) => Promise<Page<ItemOf<R>>>;
}

function useListProcedure<R extends ListedResource>(resource: R): ListProcedureOf<R> {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const list = client[resource].list as unknown as { query: ListProcedureOf<R>["query"] };
  return {
    keys: trpc[resource].list as unknown as ListProcedureOf<R>["keys"],
    query: (input, opts) => list.query(input, opts),
  };
}

/** The pages of a resource's list loaded so far, `usePageSize()` items a page, for a `PagedTable`. */
export function useResourcePages<R extends ListedResource>(resource: R): Paged<ItemOf<R>> {
  const list = useListProcedure(resource);
  const pageSize = usePageSize();
  return useCursorPages({
    queryKey: list.keys.infiniteQueryKey({ limit: pageSize }),
    fetchPage: (cursor, signal) => list.query({ limit: pageSize, cursor }, { signal }),
  });
}

/** Every item of a resource's list (see `useAllItems`), for choosers such as a `<select>`. */
export function useAllResourceItems<R extends ListedResource>(resource: R, filter?: FilterOf<R>) {
  const list = useListProcedure(resource);
  return useAllItems({
    queryKey: list.keys.queryKey({ limit: 100, ...filter }),
    fetchPage: (cursor, signal) => list.query({ limit: 100, ...filter, cursor }, { signal }),
  });
}
