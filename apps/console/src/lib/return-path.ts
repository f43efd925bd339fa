/**
 * Sign-in remembers the page that was asked for in `?next=` and goes back there afterwards. Only a path
 * on the console itself is followed: whatever resolves to another origin (`https://…`, `//host`,
 * `/\host`, …) is ignored, so a link to the console cannot send someone elsewhere after signing in.
 */
export const RETURN_PARAMETER = "next";

const AFTER_SIGN_IN = "/dashboard";

/** Where signing in leads: `requested` when it is a path on `origin` (other than sign-in), else the dashboard. */
export function returnPathAfterSignIn(requested: string | null, origin: string): string {
  if (!requested?.startsWith("/")) return AFTER_SIGN_IN;
  let url: URL;
  try {
    url = new URL(requested, origin);
  } catch {
    return AFTER_SIGN_IN;
  }
  if (url.origin !== origin || url.pathname === "/") return AFTER_SIGN_IN;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page's address, coming back to `path` (the page being left) afterwards. */
export function signInPathFor(path: string, { expired = false }: { expired?: boolean } = {}): string {
  const query = new URLSearchParams();
  if (expired) query.set("expired", "1");
  if (path.startsWith("/") && path !== "/") query.set(RETURN_PARAMETER, path);
  const search = query.toString();
  return search ? `/?${search}` : "/";
}
