import { randomInt } from "node:crypto";
import type { Db, Prisma } from "@cred/db";
import type { CoreConfig } from "../../context";
import { provisionStatusList } from "../../issuers/provision-status-list";
import { MemoCache } from "../../shared/memo-cache";
import type { TenantScope } from "../../shared/principal";

/** After this many random probes hit taken indices in a row, the list counts as full. */
const MAX_PROBES = 24;

export interface StatusSlot {
  listId: string;
  idx: number;
}

interface OpenList {
  id: string;
  size: number;
}

/** The list new credentials draw from, per issuer; re-read when a list fills up. */
const openLists = new MemoCache<OpenList | null>(10_000, 60_000);

async function findOpenList(db: Db, issuerId: string): Promise<OpenList | null> {
  return db.statusList.findFirst({
    where: { issuerId, full: false },
    orderBy: { id: "desc" },
    select: { id: true, size: true },
  });
}

export async function openStatusList(
  db: Db,
  config: Pick<CoreConfig, "issuance">,
  scope: TenantScope,
  issuerId: string,
): Promise<OpenList> {
  const cached = await openLists.get(issuerId, () => findOpenList(db, issuerId));
  if (cached) return cached;
  await provisionStatusList(db, scope, issuerId, config);
  openLists.delete(issuerId);
  return (await openLists.get(issuerId, () => findOpenList(db, issuerId)))!;
}

/** `count` distinct random indices of a list: unpredictable, so credentials cannot be correlated by index. */
export function randomSlots(list: OpenList, count: number): StatusSlot[] {
  const picked = new Set<number>();
  while (picked.size < count) picked.add(randomInt(list.size));
  return [...picked].map((idx) => ({ listId: list.id, idx }));
}

/**
 * The slow path, for the rare index that was taken meanwhile: probe random indices inside the
 * transaction until `insert` succeeds (the unique (list, index) constraint arbitrates), moving to a new
 * list when the current one is nearly full.
 */
export async function insertAtFreshSlot(
  tx: Prisma.TransactionClient,
  config: Pick<CoreConfig, "issuance">,
  scope: TenantScope,
  issuerId: string,
  insert: (slot: StatusSlot) => Promise<boolean>,
): Promise<void> {
  for (;;) {
    const list = (await findOpenList(tx, issuerId)) ?? {
      id: await provisionStatusList(tx, scope, issuerId, config),
      size: config.issuance.statusListSize,
    };
    for (let probe = 0; probe < MAX_PROBES; probe++) {
      if (await insert({ listId: list.id, idx: randomInt(list.size) })) return;
    }
    await tx.statusList.update({ where: { id: list.id }, data: { full: true } });
    openLists.delete(issuerId);
  }
}
