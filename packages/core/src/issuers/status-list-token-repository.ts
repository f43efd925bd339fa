import type { UnitOfWork } from "@cred/db";
import { certificateOfKey } from "./issuer-keys";

/**
 * The reads behind a status list token, by list id (the URL names the list; its issuer is checked
 * against the URL's by the caller). Each is one statement through `db.sql` (ADR 0003).
 */
export const statusListTokenRepository = {
  /** The list's issuer and version, or null. */
  async head(db: UnitOfWork, listId: string) {
    const { rows } = await db.sql.query<{ issuerId: string; version: number }>(
      `SELECT "issuerId", "version" FROM "StatusList" WHERE "id" = $1`,
      [listId],
    );
    return rows[0] ?? null;
  },

  /**
   * The list's version, bits and chunks with its issuer's current signing key and chain, in one
   * statement, so all come from the same snapshot: a key rotation bumps the version in the transaction
   * that changes the key. One row per chunk (none: one row with a null chunk); empty when no such list.
   */
  async listWithSigningKey(db: UnitOfWork, listId: string) {
    const { rows } = await db.sql.query<{
      version: number;
      bits: number;
      size: number;
      kid: string;
      purpose: string;
      privateKeyCipher: string | null;
      provider: string | null;
      providerKeyRef: string | null;
      chainPem: string | null;
      x5c: unknown;
      notBefore: Date | string | null;
      notAfter: Date | string | null;
      chunk: number | null;
      data: Uint8Array | null;
    }>(
      // The issuer's separate status list signing key when it has one, else its credential signing key.
      `SELECT l."version", l."bits", l."size", k."kid", k."purpose", k."privateKeyCipher", k."provider",
              k."providerKeyRef", k."chainPem", k."x5c",
              k."notBefore", k."notAfter", c."chunk", c."data"
         FROM "StatusList" l
         JOIN LATERAL (
           SELECT * FROM "IssuerKey" ik
            WHERE ik."issuerId" = l."issuerId" AND ik."state" = 'current'
              AND ik."purpose" IN ('credential_signing', 'status_list_signing')
            ORDER BY ik."purpose" = 'status_list_signing' DESC
            LIMIT 1
         ) k ON TRUE
         LEFT JOIN "StatusListChunk" c ON c."listId" = l."id"
        WHERE l."id" = $1`,
      [listId],
    );
    return rows.map(({ chainPem, x5c, notBefore, notAfter, ...row }) => ({
      ...row,
      certificate: certificateOfKey({
        chainPem,
        x5c: (typeof x5c === "string" ? JSON.parse(x5c) : x5c) as string[] | null,
        notBefore: utcDate(notBefore),
        notAfter: utcDate(notAfter),
      }),
    }));
  },
};

/** A `timestamp` as a Date: the pg driver parses it as UTC already; text is read as UTC. */
const utcDate = (value: Date | string | null) =>
  value === null ? null : value instanceof Date ? value : new Date(`${value.replace(" ", "T")}Z`);
