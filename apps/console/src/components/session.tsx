"use client";
import type { TStaffSession } from "@cred/contracts/staff";
import { createContext, useContext } from "react";

export const SessionContext = createContext<TStaffSession | null>(null);

/** The signed-in staff session (inside the console shell). */
export function useSession(): TStaffSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside the console shell");
  return session;
}

/** Whether the session's role carries one of these scopes (hides actions the API would refuse). */
export function useCan(...scopes: TStaffSession["scopes"]): boolean {
  const session = useSession();
  return scopes.some((s) => session.scopes.includes(s));
}
