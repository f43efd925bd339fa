/** The only place the console reads process.env (server side only). */
export const env = {
  /** Where the API (and its /trpc endpoint) listens; the console proxies /trpc/* to it. */
  apiOrigin: (process.env.API_ORIGIN ?? "http://127.0.0.1:3000").replace(/\/+$/, ""),
};
