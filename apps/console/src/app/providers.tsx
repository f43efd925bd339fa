"use client";
import "@cred/contracts/zod-messages";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { makeTrpcClient, TRPCProvider } from "../lib/trpc";

/**
 * A 401 inside the console means the staff session ended (expired, signed out elsewhere, cookie gone):
 * back to sign-in, saying why, rather than showing the API's message about API keys on the page.
 */
function signInAgainOn401(error: unknown) {
  const status = (error as { data?: { httpStatus?: number } | null } | null)?.data?.httpStatus;
  if (status === 401 && window.location.pathname !== "/") window.location.replace("/?expired=1");
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
