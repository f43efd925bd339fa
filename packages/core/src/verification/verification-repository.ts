import type { Db, Prisma, UnitOfWork } from "@cred/db";
import { STATUS_CHUNK_BYTES } from "../issuers";
import { type Caches, cacheSpec } from "../shared/caches";
import type { IdWindow } from "../shared/newest-first";
import { OUTBOX_COLUMNS, outboxSelect, SqlParams } from "../shared/outbox-sql";
import type { TenantScope } from "../shared/principal";

/**
 * Sessions this process has just created and committed, by `state`, so the wallet's request-object fetch
 * and its answer (normally seconds later) need no read (created-sessions.ts reads them). An optimisation
 * only: the decision statement still requires the session to be pending and unexpired in the database.
 * The insert below remembers a session once it is committed; the answer takes the entry; a decision,
 * cancellation or expiry in this process forgets it (the transitions below); anything else reads the
 * database. With several API processes, a cancellation on another one can leave the request object
 * servable here, and the answer is then refused by the decision statement.
 */
export const createdSessionsCache = cacheSpec<VerificationSessionRow>("verification.createdSessions", {
  max: 5_000,
});

/** What a transition needs of a session: its id, and its `state` to forget the remembered row by. */
type SessionHandle = Pick<VerificationSessionRow, "id" | "state">;

/** Every statement of the verification slice (sessions, verifier certificates, trust and status reads). */
export const verificationRepository = {
  createSession(db: UnitOfWork, data: Prisma.VerificationSessionUncheckedCreateInput) {
    return db.prisma.verificationSession.create({ data });
  },
  async findSession(db: UnitOfWork, scope: TenantScope, id: string): Promise<VerificationSessionRow | null> {
    const { rows } = await db.sql.query<VerificationSessionRow>(
      `SELECT * FROM "VerificationSession" WHERE "id" = $1 AND "tenantId" = $2 AND "environment" = $3`,
      [id, scope.tenantId, scope.environment],
    );
    return rows[0] ?? null;
  },
  /**
   * Wallet endpoints know the session only by its `state` (the unguessable handle in request_uri /
   * response_uri), before any tenant is known: keyed by that handle alone, no tenant scope.
   */
  async findSessionByState(db: UnitOfWork, state: string): Promise<VerificationSessionRow | null> {
    const { rows } = await db.sql.query<VerificationSessionRow>(
      `SELECT * FROM "VerificationSession" WHERE "state" = $1`,
      [state],
    );
    return rows[0] ?? null;
  },
  /**
   * A new pending session and its `verification.session.created` event, in one statement; once
   * committed, the session is remembered for the wallet's requests (`createdSessionsCache`).
   */
  async insertSessionWithEvent(
    db: UnitOfWork,
    caches: Caches,
    row: VerificationSessionRow,
    event: { scope: TenantScope; type: string; data: Record<string, unknown> },
  ) {
    const p = new SqlParams();
    const { affected } = await db.sql.query(
      `WITH created AS (
         INSERT INTO "VerificationSession" ("id", "tenantId", "environment", "policyId", "policyIdentifier",
           "purpose", "status", "rules", "state", "nonce", "clientId", "responseMode", "encryptionKeyCipher",
           "expiresAt", "createdAt", "updatedAt", "invocation", "transactionData", "dcApi",
           "requestObject", "relyingPartyId")
         VALUES (${p.add(row.id)}, ${p.add(row.tenantId)}, ${p.add(row.environment)}, ${p.add(row.policyId)},
           ${p.add(row.policyIdentifier)}, ${p.add(row.purpose)}, ${p.add(row.status)}, ${p.add(JSON.stringify(row.rules))}::jsonb,
           ${p.add(row.state)}, ${p.add(row.nonce)}, ${p.add(row.clientId)}, ${p.add(row.responseMode)},
           ${p.add(row.encryptionKeyCipher)}, ${p.add(row.expiresAt)}::timestamp(3), ${p.add(row.createdAt)}::timestamp(3),
           ${p.add(row.updatedAt)}::timestamp(3), ${p.add(row.invocation)},
           ${p.add(row.transactionData === null ? null : JSON.stringify(row.transactionData))}::jsonb,
           ${p.add(row.dcApi === null ? null : JSON.stringify(row.dcApi))}::jsonb, ${p.add(row.requestObject)},
           ${p.add(row.relyingPartyId)})
         RETURNING "id")
       INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
       SELECT ${outboxSelect(p, event.scope, event.type, event.data)} FROM created
       RETURNING "id"`,
      p.values,
    );
    if (affected !== 1) throw new Error("verification session insert wrote no event");
    db.afterCommit(() => caches.of(createdSessionsCache).set(row.state, row));
  },
  /**
   * Moves a session from `pending` to `to` atomically; false when it is no longer pending (someone
   * else decided, cancelled or expired it first). `notExpiredAt` also requires it to be unexpired.
   * The session is no longer remembered as created once this commits, moved or not.
   */
  async transitionFromPending(
    db: UnitOfWork,
    caches: Caches,
    session: SessionHandle,
    to: string,
    data: Omit<Prisma.VerificationSessionUpdateManyMutationInput, "status"> = {},
    notExpiredAt?: Date,
  ) {
    const { count } = await db.prisma.verificationSession.updateMany({
      where: {
        id: session.id,
        status: "pending",
        ...(notExpiredAt ? { expiresAt: { gt: notExpiredAt } } : {}),
      },
      data: { ...data, status: to },
    });
    db.afterCommit(() => caches.of(createdSessionsCache).delete(session.state));
    return count === 1;
  },

  /**
   * pending → verified | rejected with its result and event in ONE statement (atomic, one round trip);
   * false when the session was no longer pending and unexpired at `decidedAt`. The session is no
   * longer remembered as created afterwards, decided here or not.
   */
  async decideFromPending(
    db: UnitOfWork,
    caches: Caches,
    session: SessionHandle,
    change: {
      status: string;
      resultCipher: string;
      decidedAt: Date;
      responseCodeHash: string | null;
      /** The result's reason codes, kept in clear for VerificationSessions_List's `reason` filter. */
      reasonCodes?: string[];
    },
    event: { scope: TenantScope; type: string; data: Record<string, unknown> },
  ) {
    const p = new SqlParams();
    const { affected } = await db.sql.query(
      `WITH moved AS (
         UPDATE "VerificationSession"
            SET "status" = ${p.add(change.status)}, "resultCipher" = ${p.add(change.resultCipher)},
                "decidedAt" = ${p.add(change.decidedAt)}::timestamp(3), "encryptionKeyCipher" = NULL,
                "responseCodeHash" = ${p.add(change.responseCodeHash)},
                "reasonCodes" = ARRAY(SELECT jsonb_array_elements_text(${p.add(JSON.stringify(change.reasonCodes ?? []))}::jsonb)),
                "updatedAt" = ${p.add(new Date())}::timestamp(3)
          WHERE "id" = ${p.add(session.id)} AND "status" = 'pending' AND "expiresAt" > ${p.add(change.decidedAt)}::timestamp(3)
         RETURNING "id")
       INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
       SELECT ${outboxSelect(p, event.scope, event.type, event.data)} FROM moved
       RETURNING "id"`,
      p.values,
    );
    db.afterCommit(() => caches.of(createdSessionsCache).delete(session.state));
    return affected === 1;
  },

  findVerifierCertificate(db: UnitOfWork, scope: TenantScope) {
    return db.prisma.verifierCertificate.findUnique({ where: { tenantId_environment: scope } });
  },
  /**
   * Stores the partition's first verifier certificate unless one is there already (ON CONFLICT DO
   * NOTHING): a conflict leaves an enclosing transaction usable, where a failed insert would abort it on
   * PostgreSQL. True when this call stored it.
   */
  async createVerifierCertificateIfAbsent(
    db: UnitOfWork,
    data: Prisma.VerifierCertificateCreateManyInput,
  ): Promise<boolean> {
    const { count } = await db.prisma.verifierCertificate.createMany({ data: [data], skipDuplicates: true });
    return count === 1;
  },
  /** The environment's default registration certificate (policies naming none use it). */
  findVerifierRegistrationCertificate(db: UnitOfWork, scope: TenantScope) {
    return db.prisma.verifierRegistrationCertificate.findUnique({
      where: { tenantId_environment_defaultKey: { ...scope, defaultKey: "default" } },
    });
  },
  /** Registration certificates of this environment by id (a policy's `registrationCertificateIds`). */
  findVerifierRegistrationCertificatesByIds(db: UnitOfWork, scope: TenantScope, ids: string[]) {
    return db.prisma.verifierRegistrationCertificate.findMany({ where: { ...scope, id: { in: ids } } });
  },
  /** A relying party of this environment an intermediary acts for (a policy's `relyingPartyId`). */
  findRelyingParty(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.relyingParty.findFirst({ where: { ...scope, id }, select: { id: true } });
  },
  /** Every registration certificate of a relying party, oldest first. */
  findRegistrationCertificatesOfRelyingParty(db: UnitOfWork, scope: TenantScope, relyingPartyId: string) {
    return db.prisma.verifierRegistrationCertificate.findMany({
      where: { ...scope, relyingPartyId },
      orderBy: { id: "asc" },
    });
  },

  /**
   * A platform issuer of this partition by the `kid` of its signing key or of a replaced key it still
   * publishes, with that key's public JWK.
   */
  async findIssuerByKid(db: UnitOfWork, scope: TenantScope, kid: string) {
    const rows = await db.prisma.$queryRaw<{ id: string; publicJwk: unknown }[]>`
      SELECT "issuerId" AS "id", "publicJwk" FROM "IssuerKey"
       WHERE "tenantId" = ${scope.tenantId} AND "environment" = ${scope.environment}
         AND "kid" = ${kid} AND "purpose" = 'credential_signing' AND "state" IN ('current', 'retired')
       LIMIT 1`;
    const row = rows[0];
    if (!row) return null;
    // jsonb comes back parsed from the pg driver; a string is parsed here all the same.
    const publicJwk = typeof row.publicJwk === "string" ? JSON.parse(row.publicJwk) : row.publicJwk;
    return { id: row.id, publicJwk: publicJwk as Record<string, unknown> };
  },
  /**
   * A platform issuer's separate status list signing key of this `kid` (current, or retired while the
   * tokens it signed may still be valid), its public JWK; null when none.
   */
  async findStatusListKey(db: UnitOfWork, scope: TenantScope, issuerId: string, kid: string) {
    const rows = await db.prisma.$queryRaw<{ publicJwk: unknown }[]>`
      SELECT "publicJwk" FROM "IssuerKey"
       WHERE "tenantId" = ${scope.tenantId} AND "environment" = ${scope.environment}
         AND "issuerId" = ${issuerId} AND "kid" = ${kid}
         AND "purpose" = 'status_list_signing'
         AND ("state" = 'current' OR ("state" = 'retired' AND "acceptedUntil" > ${new Date()}))
       LIMIT 1`;
    const row = rows[0];
    if (!row) return null;
    return (typeof row.publicJwk === "string" ? JSON.parse(row.publicJwk) : row.publicJwk) as Record<
      string,
      unknown
    >;
  },
  /**
   * One entry of a platform status list, read in SQL (one byte, not the whole list): `value` is null when
   * `idx` is out of range; null overall when the list is not this issuer's in this partition.
   */
  async readOwnStatus(db: UnitOfWork, scope: TenantScope, issuerId: string, listId: string, idx: number) {
    if (!Number.isSafeInteger(idx) || idx < 0 || idx > 2 ** 31 - 1) return { size: 0, value: null };
    // The entry's byte is in the 1 KiB chunk (idx * bits / 8) / 1024; a chunk without a row is zeros.
    const { rows } = await db.sql.query<{ bits: number; size: number; byte: number | null }>(
      `SELECT l."bits", l."size",
              CASE WHEN $5::int < l."size" THEN coalesce(
                (SELECT get_byte(c."data", (($5::int * l."bits") / 8) % $6::int) FROM "StatusListChunk" c
                  WHERE c."listId" = l."id" AND c."chunk" = (($5::int * l."bits") / 8) / $6::int), 0) END AS "byte"
         FROM "StatusList" l
        WHERE l."id" = $1 AND l."issuerId" = $2 AND l."tenantId" = $3 AND l."environment" = $4`,
      [listId, issuerId, scope.tenantId, scope.environment, idx, STATUS_CHUNK_BYTES],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.byte === null) return { size: row.size, value: null };
    const shift = (idx * row.bits) % 8;
    return { size: row.size, value: (row.byte >> shift) & ((1 << row.bits) - 1) };
  },
  /** A platform credential by id, for the legacy submission's `credentialId` check. */
  findCredential(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.credential.findFirst({ where: { id, ...scope }, select: { id: true, digest: true } });
  },

  /**
   * VerificationSessions_List: newest first, keyset on id within `ids`, in the caller's partition. `status`
   * is the state a caller sees: a pending session past its expiry counts as expired (nothing is written
   * here; the sweeper and single reads settle it).
   */
  listSessions(
    db: UnitOfWork,
    scope: TenantScope,
    filter: VerificationSessionListFilter,
    page: { ids: IdWindow; take: number },
  ): Promise<VerificationSessionRow[]> {
    const where: Prisma.VerificationSessionWhereInput = {
      tenantId: scope.tenantId,
      environment: scope.environment,
    };
    if (page.ids.lt !== undefined || page.ids.gte !== undefined) where.id = { ...page.ids };
    if (filter.status === "pending") {
      where.status = "pending";
      where.expiresAt = { gt: filter.now };
    } else if (filter.status === "expired") {
      where.status = { in: ["expired", "pending"] };
      where.OR = [{ status: "expired" }, { expiresAt: { lte: filter.now } }];
    } else if (filter.status !== undefined) where.status = filter.status;
    if (filter.policyIdentifier !== undefined) where.policyIdentifier = filter.policyIdentifier;
    if (filter.reasonCode !== undefined) where.reasonCodes = { has: filter.reasonCode };
    if (filter.createdAt !== undefined) where.createdAt = filter.createdAt;
    return db.prisma.verificationSession.findMany({ where, orderBy: { id: "desc" }, take: page.take });
  },
};

export interface VerificationSessionListFilter {
  /** The state the caller sees, at `now`. */
  status?: string;
  now: Date;
  policyIdentifier?: string;
  reasonCode?: string;
  createdAt?: { gte?: Date; lt?: Date };
}

export type VerificationSessionRow = NonNullable<
  Awaited<ReturnType<Db["verificationSession"]["findUnique"]>>
>;
