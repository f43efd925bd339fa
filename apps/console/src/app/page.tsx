"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useState } from "react";
import { SubmitButton, TextField } from "../components/form-fields";
import { ErrorAlert, Loading } from "../components/status";
import { RETURN_PARAMETER, returnPathAfterSignIn } from "../lib/return-path";
import { setCsrfToken, useTRPC } from "../lib/trpc";

/** The page that was asked for before signing in (`?next=`), if it is on the console; else the dashboard. */
function returnPath(): string {
  const requested = new URLSearchParams(window.location.search).get(RETURN_PARAMETER);
  return returnPathAfterSignIn(requested, window.location.origin);
}

/** Staff sign-in (the signed-out landing page). */
export default function SignInPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.staff.me.queryOptions());
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  // Set by the console when a call found the session gone (see providers.tsx).
  const [expired, setExpired] = useState(false);
  useEffect(() => setExpired(new URLSearchParams(window.location.search).has("expired")), []);
  const signIn = useMutation(
    trpc.staff.signIn.mutationOptions({
      onSuccess: (result) => {
        setCsrfToken(result.data.csrfToken);
        queryClient.setQueryData(trpc.staff.me.queryKey(), { data: result.data });
        router.replace(returnPath());
      },
    }),
  );

  useEffect(() => {
    if (me.data?.data) router.replace(returnPath());
  }, [me.data, router]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password });
  };

  return (
    <main className="sign-in">
      <h1>Credential Platform</h1>
      <p className="lead">
        Sign in with your staff account to manage issuers, verification and integrations.
      </p>
      {me.isPending ? (
        <Loading label="Checking your session…" />
      ) : me.isError ? (
        // Most often the API is down: say which address the console tried, and offer to try again.
        <ErrorAlert
          error={me.error}
          title="Cannot check your session"
          onRetry={() => me.refetch()}
          retrying={me.isFetching}
        />
      ) : (
        <form onSubmit={submit} aria-labelledby="sign-in-title" className="card">
          <h2 id="sign-in-title">Sign in</h2>
          {expired && (
            <p className="alert" role="status">
              Your session has ended. Sign in again to continue.
            </p>
          )}
          <TextField
            label="Email address"
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={setEmail}
          />
          <TextField
            label="Password"
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={setPassword}
          />
          <ErrorAlert error={signIn.error} title="Sign-in failed" />
          <SubmitButton pending={signIn.isPending} pendingLabel="Signing in…">
            Sign in
          </SubmitButton>
          <p className="hint">
            First start? The API printed the console admin login and wrote it to <code>bootstrap.json</code>{" "}
            in its data directory (<code>DATA_DIR</code>, by default <code>.data/</code>). Lost a password? An
            operator runs <code>pnpm cli staff reset-password --email …</code>.
          </p>
        </form>
      )}
    </main>
  );
}
