"use client";
import type { Scope } from "@cred/contracts/scopes";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, Suspense, useEffect, useRef } from "react";
import { SessionContext } from "../../components/session";
import { ErrorAlert, Loading } from "../../components/status";
import { signInPathFor } from "../../lib/return-path";
import { setCsrfToken, useTRPC } from "../../lib/trpc";

/**
 * The pages; one with a `scope` is listed only for roles that carry it (the page itself says so too), one
 * `sandboxOnly` only in the sandbox environment.
 */
const NAV: { href: string; label: string; scope?: Scope; sandboxOnly?: boolean }[] = [
  { href: "/dashboard", label: "Dashboard" },
  { href: "/organisations", label: "Organisations" },
  { href: "/issuers", label: "Issuers" },
  { href: "/credential-configurations", label: "Credential configurations" },
  { href: "/verification-policies", label: "Verification policies" },
  { href: "/verifier-certificate", label: "Verifier certificate" },
  { href: "/relying-parties", label: "Relying parties", scope: "verification-policies.read" },
  { href: "/trust-sources", label: "Trust sources", scope: "trust-sources.read" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/transactions", label: "Transactions", scope: "credentials.read" },
  { href: "/credentials", label: "Credentials", scope: "credentials.read" },
  { href: "/verifications", label: "Verifications", scope: "verification.read" },
  { href: "/api-keys", label: "API keys" },
  { href: "/audit", label: "Audit", scope: "audit.read" },
  // Administrators only (docs/api/staff-members.md).
  { href: "/team", label: "Team", scope: "staff.manage" },
  // Platform operators only (docs/api/tenants.md): hidden for everyone else.
  { href: "/tenants", label: "Tenants", scope: "platform.manage" },
  { href: "/playground/issuance", label: "Issuance playground" },
  { href: "/playground/verification", label: "Verification playground" },
  { href: "/wallet", label: "Sandbox wallet", sandboxOnly: true },
];

/** The signed-in shell: navigation, tenant and environment switcher, sign-out. */
export default function ConsoleLayout({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.staff.me.queryOptions());
  const session = me.data?.data ?? null;
  if (session) setCsrfToken(session.csrfToken);

  // Set on signing out: the session query then answers "none" too, and whoever signs in next starts
  // at the dashboard, not on the page the last user left.
  const signedOut = useRef(false);
  useEffect(() => {
    // Back here after signing in (only a path on the console is followed: lib/return-path.ts).
    if (me.isSuccess && !session && !signedOut.current)
      router.replace(signInPathFor(`${window.location.pathname}${window.location.search}`));
  }, [me.isSuccess, session, router]);

  const switchEnvironment = useMutation(
    trpc.staff.switchEnvironment.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
      },
    }),
  );
  // Only staff with memberships in other tenants see a tenant selector.
  const tenants = useQuery({ ...trpc.staff.tenants.queryOptions(), enabled: !!session });
  const switchTenant = useMutation(
    trpc.staff.switchTenant.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
      },
    }),
  );
  const signOut = useMutation(
    trpc.staff.signOut.mutationOptions({
      onSettled: () => {
        signedOut.current = true;
        setCsrfToken(null);
        queryClient.clear();
        router.replace("/");
      },
    }),
  );

  if (me.isPending) return <Loading label="Loading your session…" />;
  if (me.isError)
    return (
      <main className="centered">
        <ErrorAlert
          error={me.error}
          title="Could not load your session"
          onRetry={() => me.refetch()}
          retrying={me.isFetching}
        />
      </main>
    );
  if (!session) return <Loading label="Redirecting to sign-in…" />;

  return (
    <SessionContext.Provider value={session}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="shell">
        {/* Production reads differently at a glance: a red header that says so (globals.css). */}
        <header className={`topbar env-${session.environment}`}>
          <span className="brand">Credential Platform</span>
          {session.environment === "production" && (
            <strong
              className="env-banner"
              data-testid="env-banner"
              title="Changes here reach live credentials, wallets and relying parties."
            >
              Production
            </strong>
          )}
          <div className="topbar-controls">
            {tenants.data && tenants.data.data.length > 1 ? (
              <label className="env-switch">
                Tenant
                <select
                  value={session.tenant.id}
                  disabled={switchTenant.isPending}
                  onChange={(e) => switchTenant.mutate({ tenantId: e.target.value })}
                >
                  {tenants.data.data.map((tenant) => (
                    <option key={tenant.id} value={tenant.id}>
                      {tenant.name} ({tenant.role})
                    </option>
                  ))}
                </select>
              </label>
            ) : (
              <span className="tenant" title="Tenant">
                <span className="visually-hidden">Tenant: </span>
                {session.tenant.name}
              </span>
            )}
            <label className="env-switch">
              Environment
              <select
                value={session.environment}
                disabled={switchEnvironment.isPending}
                onChange={(e) =>
                  switchEnvironment.mutate({ environment: e.target.value as "sandbox" | "production" })
                }
              >
                <option value="sandbox">Sandbox</option>
                <option value="production">Production</option>
              </select>
            </label>
            <span className="who">
              {session.user.email} <span className="badge">{session.user.role}</span>
            </span>
            <button type="button" className="secondary" onClick={() => signOut.mutate()}>
              Sign out
            </button>
          </div>
        </header>
        <nav aria-label="Console" className="sidebar">
          <ul>
            {NAV.filter(
              (item) =>
                (!item.scope || session.scopes.includes(item.scope)) &&
                (!item.sandboxOnly || session.environment === "sandbox"),
            ).map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  aria-current={
                    pathname === item.href || pathname.startsWith(`${item.href}/`) ? "page" : undefined
                  }
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1} className={`content env-${session.environment}`}>
          <ErrorAlert error={switchEnvironment.error} title="Could not switch environment" />
          <ErrorAlert error={switchTenant.error} title="Could not switch tenant" />
          {/* Pages read search parameters (e.g. ?pageSize=); Next wants a boundary around them. */}
          {/* Keyed by tenant and environment: a switch starts every page afresh, so nothing created in
              one environment (a playground offer, a half-filled form) stays on screen in the other. */}
          <Suspense key={`${session.tenant.id}:${session.environment}`} fallback={<Loading />}>
            {children}
          </Suspense>
        </main>
      </div>
    </SessionContext.Provider>
  );
}
