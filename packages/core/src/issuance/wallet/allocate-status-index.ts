import { randomInt } from "node:crypto";
import type { Prisma } from "@cred/db";
import type { CoreConfig } from "../../context";
import { provisionStatusList } from "../../issuers/provision-status-list";
import type { TenantScope } from "../../shared/principal";

/** After this many random probes hit taken indices in a row, the list counts as full. */
const MAX_PROBES = 24;

export interface StatusSlot {
  listId: string;
  idx: number;
}

/**
 * Inserts a credential row at an unpredictable, never reused index of the issuer's current status list
 * (the unique (list, index) constraint is the arbiter, so concurrent issuers can never share an index).
 * `insert` returns false when the index was taken; the row is retried at another index.
 */
export async function withStatusSlot(
  tx: Prisma.TransactionClient,
  config: Pick<CoreConfig, "issuance">,
  scope: TenantScope,
  issuerId: string,
  insert: (slot: StatusSlot) => Promise<boolean>,
): Promise<StatusSlot> {
  for (;;) {
    let list = await tx.statusList.findFirst({ where: { issuerId, full: false }, orderBy: { id: "desc" } });
    if (!list) {
      await provisionStatusList(tx, scope, issuerId, config);
      list = await tx.statusList.findFirstOrThrow({
        where: { issuerId, full: false },
        orderBy: { id: "desc" },
      });
    }
    for (let probe = 0; probe < MAX_PROBES; probe++) {
      const slot = { listId: list.id, idx: randomInt(list.size) };
      if (await insert(slot)) return slot;
    }
    await tx.statusList.update({ where: { id: list.id }, data: { full: true } });
  }
}
