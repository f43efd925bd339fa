/** A unique-constraint violation from a raw statement (PostgreSQL 23505). */
export function isRawUniqueViolation(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string } | null)?.code;
  return code === "23505" || /23505|duplicate key|unique constraint/i.test(message);
}
