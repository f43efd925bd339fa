import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyAuditChain } from "../src/audit";
import { auditRepository } from "../src/shared/audit-repository";
import { recordAuditEvent, sealAuditChainSoon } from "../src/shared/audit-trail";
import { newId } from "../src/shared/ids";
import { openUseCaseWorld, type UseCaseWorld } from "./use-case-fixture";

let world: UseCaseWorld;

beforeAll(async () => {
  world = await openUseCaseWorld();
});
afterAll(() => world?.close());
afterEach(() => vi.restoreAllMocks());

const record = (operation = "Issuers_Update") =>
  recordAuditEvent(world.db, {
    tenantId: world.scope.tenantId,
    environment: world.scope.environment,
    actor: { type: "apiKey", id: "key_test", name: "test" },
    operation,
    input: { issuerId: "iss_x", displayName: "x" },
    output: undefined,
    status: 200,
    requestId: newId("req"),
  });

const unsealed = () => auditRepository.hasUnsealed(world.db, world.scope.tenantId);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("audit sealing", () => {
  it("sealAll seals every event unsealed when it began, batch after batch, into one unbroken chain", async () => {
    for (let i = 0; i < 1_100; i++) await record();
    expect(await auditRepository.sealAll(world.db, world.scope.tenantId)).toBe(1_100);
    expect(await unsealed()).toBe(false);
    const report = await verifyAuditChain(world.db, world.scope.tenantId);
    expect(report).toMatchObject({ intact: true, events: 1_100 });
  }, 120_000);

  it("a busy tenant is sealed in rounds about a second apart, not once per call (no chasing the newest events)", async () => {
    const rounds = vi.spyOn(auditRepository, "sealTenant");
    const started = Date.now();
    // A call every 5 ms for 2.5 s, each followed by its seal request, as rpc/audited.ts does.
    while (Date.now() - started < 2_500) {
      await record();
      sealAuditChainSoon(world.deps, world.scope.tenantId);
      await sleep(5);
    }
    await vi.waitFor(async () => expect(await unsealed()).toBe(false), { timeout: 10_000, interval: 200 });
    // Rounds begin 1 s after the first call and 1 s after each round that saw new calls: at most ~4 here,
    // where sealing until none is left ran dozens of transactions.
    expect(rounds.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(rounds.mock.calls.length).toBeLessThanOrEqual(5);
    expect(await verifyAuditChain(world.db, world.scope.tenantId)).toMatchObject({ intact: true });
  }, 60_000);
});
