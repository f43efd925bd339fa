"use client";
import type { AppRouter } from "@cred/core";
import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "./trpc";

type RouterName = keyof AppRouter["_def"]["record"];

/** Refetches every loaded query of the given routers, e.g. after a mutation changed them. */
export function useRefresh(...routers: RouterName[]): () => Promise<void> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all(routers.map((router) => queryClient.invalidateQueries(trpc[router].pathFilter())));
  };
}
