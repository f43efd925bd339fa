import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { toErrorEnvelope } from "./error-shape";
import { isUnstorableTextViolation } from "./sql-errors";

/** What Prisma's driver adapters throw (as seen from PGlite and PostgreSQL alike): the SQLSTATE in meta. */
function prismaError(originalCode: string, originalMessage: string) {
  return Object.assign(new Error(`Database error. Code: \`${originalCode}\``), {
    name: "PrismaClientKnownRequestError",
    code: originalCode === "22P02" ? "P2007" : "P2039",
    meta: { driverAdapterError: { name: "DriverAdapterError", cause: { originalCode, originalMessage } } },
  });
}

/** What the fast SQL path (pg, PGlite) throws: the SQLSTATE as `code`. */
const driverError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("isUnstorableTextViolation", () => {
  it("recognises U+0000 in text, \\u0000 in jsonb and an unpaired surrogate in jsonb, from Prisma or a driver", () => {
    for (const error of [
      prismaError("22021", 'invalid byte sequence for encoding "UTF8": 0x00'),
      prismaError("22P05", "unsupported Unicode escape sequence"),
      prismaError("22P02", "invalid input syntax for type json"),
      driverError("22021", 'invalid byte sequence for encoding "UTF8": 0x00'),
      driverError("22P05", "unsupported Unicode escape sequence"),
      driverError("22P02", "invalid input syntax for type json"),
      new Error("wrapped", { cause: driverError("22P05", "unsupported Unicode escape sequence") }),
    ]) {
      expect([error.message, isUnstorableTextViolation(error)]).toEqual([error.message, true]);
    }
  });

  it("leaves every other failure alone", () => {
    for (const error of [
      prismaError("22P02", "invalid input syntax for type uuid"),
      prismaError("23505", "duplicate key value violates unique constraint"),
      driverError("22P02", 'invalid input syntax for type integer: "x"'),
      driverError("ECONNREFUSED", "connect ECONNREFUSED"),
      new Error("22P05 in a message is not a code"),
      undefined,
      "22021",
    ]) {
      expect(isUnstorableTextViolation(error)).toBe(false);
    }
  });

  it("makes a 400 ValidationFailed of it, not a 500, where tRPC wrapped it", () => {
    const wrapped = new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      cause: prismaError("22P05", "unsupported Unicode escape sequence"),
    });
    const { status, envelope } = toErrorEnvelope(wrapped, "req-1");
    expect(status).toBe(400);
    expect(envelope.error).toMatchObject({ code: "ValidationFailed", requestId: "req-1" });
    expect(envelope.error.message).toContain("U+0000");
  });
});
