import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeCredential } from "../src/credentials/revoke-credential";
import { STATUS_LIST_BITS, statusEntryLocation } from "../src/issuers";
import { newId } from "../src/shared/ids";
import type { Principal } from "../src/shared/principal";
import { activeIssuerOf, domainErrorOf, openUseCaseWorld, type UseCaseWorld } from "./use-case-fixture";

let world: UseCaseWorld;
let issuer: Awaited<ReturnType<typeof activeIssuerOf>>;
let nextIdx = 1;

beforeAll(async () => {
  world = await openUseCaseWorld();
  issuer = await activeIssuerOf(world);
});
afterAll(() => world?.close());

/**
 * Credential rows as issuance writes them, `copies` of one issuance transaction (a batch), each with its
 * own status entry unless `withStatus` is false.
 */
async function issued(copies = 1, withStatus = true) {
  const prisma = world.db.prisma;
  const [configuration, list] = await Promise.all([
    prisma.credentialConfiguration.findFirstOrThrow({ where: { issuerId: issuer.issuerId } }),
    prisma.statusList.findFirstOrThrow({ where: { issuerId: issuer.issuerId } }),
  ]);
  const transactionId = newId("itx");
  const ids: string[] = [];
  for (let i = 0; i < copies; i++) {
    const id = newId("cred");
    await prisma.credential.create({
      data: {
        id,
        ...world.scope,
        issuerId: issuer.issuerId,
        configurationId: configuration.id,
        transactionId,
        status: "issued",
        digest: `digest-${id}`,
        ...(withStatus ? { statusListId: list.id, statusIndex: nextIdx++ } : {}),
        issuedAt: new Date(),
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    ids.push(id);
  }
  return { ids, listId: list.id };
}

const revoke = (credentialId: string, principal: Principal = world.principal()) =>
  revokeCredential(world.deps, world.db, principal, credentialId);

/** The entry's status in the list's chunk rows (0 valid, 1 revoked). */
async function statusBits(listId: string, idx: number) {
  const at = statusEntryLocation(idx, STATUS_LIST_BITS);
  const chunk = await world.db.prisma.statusListChunk.findUnique({
    where: { listId_chunk: { listId, chunk: at.chunk } },
  });
  if (!chunk) return 0;
  return (chunk.data[at.offset]! >> at.shift) & ((1 << STATUS_LIST_BITS) - 1);
}

const revokedEvents = (credentialId: string) =>
  world.db.prisma.outboxEvent
    .findMany({ where: { type: "credential.revoked", tenantId: world.scope.tenantId } })
    .then((rows) =>
      rows.filter((r) => (r.payload as { credentialId?: string }).credentialId === credentialId),
    );

describe("revokeCredential", () => {
  it("revokes once: the status bit, a new list version and one event; revoking again returns the same state", async () => {
    const { ids, listId } = await issued();
    const id = ids[0]!;
    const before = await world.db.prisma.statusList.findUniqueOrThrow({ where: { id: listId } });
    const first = await revoke(id);
    expect(first.status).toBe("revoked");
    expect(first.revokedAt).not.toBeNull();
    expect(await statusBits(listId, first.statusList!.idx)).toBe(1);
    const after = await world.db.prisma.statusList.findUniqueOrThrow({ where: { id: listId } });
    expect(after.version).toBe(before.version + 1);

    const again = await revoke(id);
    expect(again).toEqual(first);
    expect(await revokedEvents(id)).toHaveLength(1);
  });

  it("revokes every copy of a batch when one is revoked", async () => {
    const { ids, listId } = await issued(3);
    await revoke(ids[1]!);
    const rows = await world.db.prisma.credential.findMany({ where: { id: { in: ids } } });
    expect(rows.map((r) => r.status)).toEqual(["revoked", "revoked", "revoked"]);
    for (const row of rows) expect(await statusBits(listId, row.statusIndex!)).toBe(1);
  });

  it("leaves the neighbours in the same status byte valid", async () => {
    const { ids, listId } = await issued(1);
    const { ids: neighbours } = await issued(2);
    await revoke(ids[0]!);
    const rows = await world.db.prisma.credential.findMany({ where: { id: { in: neighbours } } });
    for (const row of rows) {
      expect(row.status).toBe("issued");
      expect(await statusBits(listId, row.statusIndex!)).toBe(0);
    }
  });

  it("RevocationNotSupported for a credential issued without a status entry", async () => {
    const { ids } = await issued(1, false);
    expect((await domainErrorOf(revoke(ids[0]!))).code).toBe("RevocationNotSupported");
  });

  it("NotFound for an unknown credential, and for one of another environment, tenant or issuer", async () => {
    const { ids } = await issued();
    const id = ids[0]!;
    expect((await domainErrorOf(revoke(newId("cred")))).code).toBe("NotFound");
    expect((await domainErrorOf(revoke(id, world.principal({ environment: "production" })))).code).toBe(
      "NotFound",
    );
    expect((await domainErrorOf(revoke(id, world.principal({ tenantId: newId("ten") })))).code).toBe(
      "NotFound",
    );
    const other = await activeIssuerOf(world);
    expect((await domainErrorOf(revoke(id, world.principal({ issuerId: other.issuerId })))).code).toBe(
      "NotFound",
    );
    const row = await world.db.prisma.credential.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("issued");
  });
});
