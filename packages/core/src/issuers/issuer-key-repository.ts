import { Prisma, type UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import { forgetIssuerAfterCommit } from "./issuer-caches";
import type { IssuerKeyPurpose, IssuerKeyRow } from "./issuer-keys";
import type { StoredSigningCertificate } from "./stored-signing-certificate";

/** A key as its provider generated it: public JWK, and the sealed private JWK (software) or the provider's reference. */
export interface NewIssuerKey {
  kid: string;
  publicJwk: Record<string, unknown>;
  privateKeyCipher: string | null;
  /** `software` when absent. */
  provider?: string;
  providerKeyRef?: string | null;
}

const SIGNING = "credential_signing" satisfies IssuerKeyPurpose;
const ENCRYPTION = "credential_request_encryption" satisfies IssuerKeyPurpose;

/**
 * The IssuerKey rows (docs/adr/0021-issuer-keys.md). Every write runs under the issuer's row lock
 * (`issuerRepository.lockForUpdate`), which keeps at most one `current` and one `next` per issuer and
 * purpose (also a partial unique index). Each write makes this process forget what it cached of the
 * issuer once committed (`forgetIssuerAfterCommit`).
 */
/** The key columns of a stored certificate (null: none). */
function certificateColumns(certificate: StoredSigningCertificate | null) {
  return {
    chainPem: certificate?.chainPem ?? null,
    x5c: certificate ? certificate.x5c : Prisma.DbNull,
    notBefore: certificate ? new Date(certificate.notBefore) : null,
    notAfter: certificate ? new Date(certificate.notAfter) : null,
  };
}

export const issuerKeyRepository = {
  /** A new key of the issuer in the given state (a fresh issuer's signing key, a prepared next key, …). */
  create(
    db: UnitOfWork,
    caches: Caches,
    issuer: TenantScope & { issuerId: string },
    purpose: IssuerKeyPurpose,
    state: "next" | "current",
    key: NewIssuerKey,
    at: Date,
  ) {
    forgetIssuerAfterCommit(db, caches, issuer.issuerId);
    return db.prisma.issuerKey.create({
      data: {
        id: newId("ikey"),
        issuerId: issuer.issuerId,
        tenantId: issuer.tenantId,
        environment: issuer.environment,
        purpose,
        state,
        kid: key.kid,
        publicJwk: key.publicJwk as Prisma.InputJsonObject,
        privateKeyCipher: key.privateKeyCipher,
        provider: key.provider ?? "software",
        providerKeyRef: key.providerKeyRef ?? null,
        ...(state === "next" ? { preparedAt: at } : { activatedAt: at }),
        createdAt: at,
      },
    });
  },

  /** Removes the issuer's keys of a purpose in the given states (e.g. a discarded next key). */
  async deleteInStates(
    db: UnitOfWork,
    caches: Caches,
    scope: TenantScope,
    issuerId: string,
    purpose: IssuerKeyPurpose,
    states: ("next" | "current" | "retired")[],
  ): Promise<number> {
    forgetIssuerAfterCommit(db, caches, issuerId);
    const { count } = await db.prisma.issuerKey.deleteMany({
      where: { issuerId, ...scope, purpose, state: { in: states } },
    });
    return count;
  },

  /**
   * Retires the issuer's separate status list signing key: it signs nothing any more (its private part
   * is dropped here; an HSM key is destroyed by the caller), and its public key stays published until
   * `acceptedUntil`, when the last status list token it signed has expired.
   */
  async retireStatusListSigningKey(
    db: UnitOfWork,
    caches: Caches,
    scope: TenantScope,
    issuerId: string,
    acceptedUntil: Date,
    at: Date,
  ): Promise<void> {
    forgetIssuerAfterCommit(db, caches, issuerId);
    await db.prisma.issuerKey.updateMany({
      where: { issuerId, ...scope, purpose: "status_list_signing", state: "current" },
      data: { state: "retired", retiredAt: at, acceptedUntil, privateKeyCipher: null, providerKeyRef: null },
    });
  },

  /** Sets (or with null removes) the certificate chain of one key. */
  setCertificate(
    db: UnitOfWork,
    caches: Caches,
    scope: TenantScope,
    key: { id: string; issuerId: string },
    certificate: StoredSigningCertificate | null,
  ) {
    forgetIssuerAfterCommit(db, caches, key.issuerId);
    return db.prisma.issuerKey.updateMany({
      where: { id: key.id, ...scope },
      data: certificateColumns(certificate),
    });
  },

  /**
   * A signing key rotation: the current key is retired with its private part discarded (`keep`: still
   * published) or removed (`withdraw`), then `incoming` becomes current: the prepared next key (with its
   * chain) or a fresh key.
   */
  async switchSigningKey(
    db: UnitOfWork,
    caches: Caches,
    issuer: TenantScope & { issuerId: string },
    replaced: { keyId: string; keep: boolean },
    incoming: { nextKeyId: string } | { fresh: NewIssuerKey },
    at: Date,
  ) {
    const scope = { tenantId: issuer.tenantId, environment: issuer.environment };
    forgetIssuerAfterCommit(db, caches, issuer.issuerId);
    if (replaced.keep) {
      await db.prisma.issuerKey.updateMany({
        where: { id: replaced.keyId, ...scope },
        // The private part is discarded: the sealed value here, an HSM key by its provider after the commit.
        data: { state: "retired", retiredAt: at, privateKeyCipher: null, providerKeyRef: null },
      });
    } else {
      await db.prisma.issuerKey.deleteMany({ where: { id: replaced.keyId, ...scope } });
    }
    if ("nextKeyId" in incoming) {
      await db.prisma.issuerKey.updateMany({
        where: { id: incoming.nextKeyId, ...scope },
        data: { state: "current", activatedAt: at },
      });
    } else {
      await issuerKeyRepository.create(db, caches, issuer, SIGNING, "current", incoming.fresh, at);
    }
  },

  /**
   * A request encryption key rotation: replaced keys retired before are removed; the current key is
   * retired until `acceptedUntil` (or removed, null), and `fresh` becomes current.
   */
  async switchEncryptionKey(
    db: UnitOfWork,
    caches: Caches,
    issuer: TenantScope & { issuerId: string },
    replaced: { keyId: string; acceptedUntil: Date | null } | null,
    fresh: NewIssuerKey,
    at: Date,
  ) {
    const scope = { tenantId: issuer.tenantId, environment: issuer.environment };
    await issuerKeyRepository.deleteInStates(db, caches, scope, issuer.issuerId, ENCRYPTION, ["retired"]);
    if (replaced?.acceptedUntil) {
      await db.prisma.issuerKey.updateMany({
        where: { id: replaced.keyId, ...scope },
        data: { state: "retired", retiredAt: at, acceptedUntil: replaced.acceptedUntil },
      });
    } else if (replaced) {
      await db.prisma.issuerKey.deleteMany({ where: { id: replaced.keyId, ...scope } });
    }
    await issuerKeyRepository.create(db, caches, issuer, ENCRYPTION, "current", fresh, at);
  },

  /**
   * Removes replaced request encryption keys whose overlap ended by `now`, sealed private halves with
   * them, and retired status list signing keys whose tokens have all expired (published until then); returns what each referred to (the caller destroys HSM keys). Requests stopped taking them at
   * `acceptedUntil` already (this only clears
   * what stays at rest), so nothing an issuer shows changes and no cache needs dropping. Across all
   * issuers (the sweeper's job).
   */
  async deleteExpiredEncryptionKeys(
    db: UnitOfWork,
    now: Date,
  ): Promise<Pick<IssuerKeyRow, "issuerId" | "provider" | "providerKeyRef" | "privateKeyCipher">[]> {
    const { rows } = await db.sql.query<
      Pick<IssuerKeyRow, "issuerId" | "provider" | "providerKeyRef" | "privateKeyCipher">
    >(
      `DELETE FROM "IssuerKey"
        WHERE "purpose" IN ('credential_request_encryption', 'status_list_signing') AND "state" = 'retired'
          AND "acceptedUntil" <= $1::timestamp(3)
      RETURNING "issuerId", "provider", "providerKeyRef", NULL AS "privateKeyCipher"`,
      [now],
    );
    return rows;
  },

  /**
   * Every issuer key across tenants (the operator's CLI, `issuer-keys list`), optionally of one tenant
   * or one provider: where each key is held, never its private part.
   */
  listAcrossTenants(db: UnitOfWork, filter: { tenantId?: string; provider?: string }) {
    return db.prisma.issuerKey.findMany({
      where: {
        ...(filter.tenantId ? { tenantId: filter.tenantId } : {}),
        ...(filter.provider === "software"
          ? { OR: [{ provider: "software" }, { provider: null }] }
          : filter.provider
            ? { provider: filter.provider }
            : {}),
      },
      select: {
        issuerId: true,
        tenantId: true,
        environment: true,
        purpose: true,
        state: true,
        kid: true,
        provider: true,
        providerKeyRef: true,
        privateKeyCipher: true,
        createdAt: true,
      },
      orderBy: [{ tenantId: "asc" }, { issuerId: "asc" }, { createdAt: "asc" }],
    });
  },

  /**
   * One sealed signing key, any issuer's (the composition root checks the master key opens it). By no
   * tenant: it runs before any request.
   */
  findAnySealedSigningKey(
    db: UnitOfWork,
  ): Promise<Pick<IssuerKeyRow, "issuerId" | "privateKeyCipher"> | null> {
    return db.prisma.issuerKey.findFirst({
      where: { purpose: SIGNING, privateKeyCipher: { not: null } },
      select: { issuerId: true, privateKeyCipher: true },
    });
  },
};
