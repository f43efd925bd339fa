"use client";
import type { AppRouter } from "@cred/core";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { fetchThroughConsole } from "./unreachable";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** The session's CSRF token, set from staff.me / staff.signIn; sent on every call (checked on mutations). */
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

export function makeTrpcClient() {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: "/trpc",
        maxItems: 16, // the API's maxBatchSize (apps/api/src/console/mount-console.ts)
        headers: () => (csrfToken ? { "x-csrf-token": csrfToken } : {}),
        // A console server that does not answer reads as "not reachable", not as a JSON parse error.
        fetch: fetchThroughConsole,
      }),
    ],
  });
}
