"use client";
import "@cred/contracts/zod-messages";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { signInPathFor } from "../lib/return-path";
import { makeTrpcClient, TRPCProvider } from "../lib/trpc";

/**
 * A 401 inside the console means the staff session ended (expired, signed out elsewhere, cookie gone):
 * back to sign-in, saying why, rather than showing the API's message about API keys on the page; signing
 * in again comes back to the page.
 */
function signInAgainOn401(error: unknown) {
  const status = (error as { data?: { httpStatus?: number } | null } | null)?.data?.httpStatus;
  const { pathname, search } = window.location;
  if (status === 401 && pathname !== "/")
    window.location.replace(signInPathFor(`${pathname}${search}`, { expired: true }));
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: signInAgainOn401 }),
        mutationCache: new MutationCache({ onError: signInAgainOn401 }),
        defaultOptions: {
          queries: { retry: false, refetchOnWindowFocus: false, staleTime: 2_000 },
          mutations: { retry: false },
        },
      }),
  );
  const [trpcClient] = useState(makeTrpcClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
