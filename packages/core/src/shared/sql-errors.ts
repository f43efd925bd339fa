/** A unique-constraint violation from a raw statement (PostgreSQL 23505). */
export function isRawUniqueViolation(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string } | null)?.code;
  return code === "23505" || /23505|duplicate key|unique constraint/i.test(message);
}

/** The SQLSTATE and message of a database error: a driver's own, or the one a Prisma error wraps. */
function sqlStateOf(error: unknown): { code?: string; message?: string } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const wrapped = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: string } } } }).meta
    ?.driverAdapterError?.cause;
  if (wrapped?.originalCode) {
    return { code: wrapped.originalCode, message: (wrapped as { originalMessage?: string }).originalMessage };
  }
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)
    ? { code, message: typeof message === "string" ? message : undefined }
    : undefined;
}

/**
 * PostgreSQL refused text it cannot hold: U+0000 in `text` (22021), `\u0000` in `jsonb` (22P05), or an
 * unpaired surrogate escape in `jsonb` (22P02 "invalid input syntax for type json": every JSON value
 * the platform writes is serialised by JSON.stringify, so nothing else makes it invalid). Only a
 * caller's input holds such characters; the HTTP edge refuses them where they enter (apps/api
 * http/storable-text.ts), and this recognises one that arrived deeper, e.g. inside a JSON-valued form
 * parameter or a decrypted request, so it answers 400 rather than 500.
 */
export function isUnstorableTextViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const state = sqlStateOf(e);
    if (!state) continue;
    if (state.code === "22021" || state.code === "22P05") return true;
    if (state.code === "22P02" && /type json/i.test(state.message ?? "")) return true;
  }
  return false;
}
