import { randomInt } from "node:crypto";
import type { UnitOfWork } from "@cred/db";
import { provisionStatusList } from "../../issuers";
import type { CoreConfig } from "../../shared/context";
import { MemoCache } from "../../shared/memo-cache";
import type { TenantScope } from "../../shared/principal";

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

async function findOpenList(db: UnitOfWork, issuerId: string): Promise<OpenList | null> {
  return db.prisma.statusList.findFirst({
    where: { issuerId, full: false },
    orderBy: { id: "desc" },
    select: { id: true, size: true },
  });
}

export async function openStatusList(
  db: UnitOfWork,
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

/** Marks a list full (its remaining free indices are too few to draw from at random) and forgets it. */
export async function markStatusListFull(db: UnitOfWork, issuerId: string, listId: string) {
  await db.prisma.statusList.update({ where: { id: listId }, data: { full: true } });
  openLists.delete(issuerId);
}
