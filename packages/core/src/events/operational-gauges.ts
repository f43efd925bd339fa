import type { UnitOfWork } from "@cred/db";
import { type StatusListFill, statusListFillRepository } from "../issuers";
import { eventsRepository } from "./events-repository";

export interface OperationalGauges {
  /** Webhook deliveries waiting for an attempt. */
  webhookQueueDepth: number;
  statusLists: StatusListFill;
}

/** The gauges the server's metrics read from the database on each scrape: two aggregate statements. */
export async function readOperationalGauges(db: UnitOfWork): Promise<OperationalGauges> {
  const [webhookQueueDepth, statusLists] = await Promise.all([
    eventsRepository.countPending(db),
    statusListFillRepository.fill(db),
  ]);
  return { webhookQueueDepth, statusLists };
}
