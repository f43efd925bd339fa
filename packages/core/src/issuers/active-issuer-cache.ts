import type { Db, UnitOfWork } from "@cred/db";
import { MemoCache } from "../shared/memo-cache";

/**
 * Active issuer rows on the issuance hot path, cached per process. Issuer activation is one-way: only an
 * active issuer is cached, and a miss is always read from the database. An active issuer's row still
 * changes (a signing key rotation, settings), so it is kept for `ROW_TTL_MS` only, and dropped at once in
 * the process that changes it. Configurations, versions and grants: `configurationCatalog`.
 */
type IssuerRow = NonNullable<Awaited<ReturnType<Db["issuer"]["findUnique"]>>>;

/** How long another process may go on signing with an issuer's replaced key. */
const ROW_TTL_MS = 2_000;
const activeIssuers = new MemoCache<IssuerRow | null>(10_000, ROW_TTL_MS);

export const activeIssuerCache = {
  forgetIssuer(issuerId: string) {
    activeIssuers.delete(issuerId);
  },
  /** The issuer row once it is active (then cached); a draft or unknown issuer is read every time. */
  issuer(db: UnitOfWork, issuerId: string) {
    return activeIssuers.get(
      issuerId,
      () => db.prisma.issuer.findUnique({ where: { id: issuerId } }),
      (row) => row?.status === "active",
    );
  },
};
