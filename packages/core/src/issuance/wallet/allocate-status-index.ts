import { randomInt } from "node:crypto";
import type { UnitOfWork } from "@cred/db";
import { provisionStatusList } from "../../issuers";
import type { AppDeps } from "../../shared/context";
import type { TenantScope } from "../../shared/principal";
import {
  issuedCredentialRepository,
  OPEN_STATUS_LISTS,
  type OpenStatusList,
} from "../issued-credential-repository";

export interface StatusSlot {
  listId: string;
  idx: number;
}

export async function openStatusList(
  deps: Pick<AppDeps, "config" | "caches">,
  db: UnitOfWork,
  scope: TenantScope,
  issuerId: string,
): Promise<OpenStatusList> {
  const openLists = deps.caches.of(OPEN_STATUS_LISTS);
  const find = () => issuedCredentialRepository.findOpenStatusList(db, issuerId);
  const cached = await openLists.get(issuerId, find);
  if (cached) return cached;
  await provisionStatusList(db, scope, issuerId, deps.config);
  openLists.delete(issuerId);
  return (await openLists.get(issuerId, find))!;
}

/** `count` distinct random indices of a list: unpredictable, so credentials cannot be correlated by index. */
export function randomSlots(list: OpenStatusList, count: number): StatusSlot[] {
  const picked = new Set<number>();
  while (picked.size < count) picked.add(randomInt(list.size));
  return [...picked].map((idx) => ({ listId: list.id, idx }));
}
