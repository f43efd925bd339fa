/** The console session cookie: httpOnly, SameSite=Lax, Secure unless development over http. */
export const SESSION_COOKIE = "cp_session";
export const SESSION_MAX_AGE_SECONDS = 12 * 3600;

export function sessionCookie(token: string, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${SESSION_MAX_AGE_SECONDS}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  return [
    `${SESSION_COOKIE}=`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    "Max-Age=0",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** The session token from a Cookie header, if any. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}

/** Secure cookies everywhere except a development server reached over plain http. */
export function secureCookies(config: { developmentMode: boolean; publicBaseUrl: string }): boolean {
  return !(config.developmentMode && config.publicBaseUrl.startsWith("http://"));
}
