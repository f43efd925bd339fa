import type { UnitOfWork } from "@cred/db";
import { type StatusListFill, statusListFillRepository } from "../issuers";
import { trustSourceRepository } from "../trust-sources";
import { eventsRepository } from "./events-repository";

export interface OperationalGauges {
  /** Webhook deliveries waiting for an attempt. */
  webhookQueueDepth: number;
  statusLists: StatusListFill;
  /** Live trust sources: all, refresh failing (stale or worse), and past a list's NextUpdate. */
  trustSources: { total: number; failing: number; pastNextUpdate: number };
}

/** The gauges the server's metrics read from the database on each scrape: a few aggregate statements. */
export async function readOperationalGauges(db: UnitOfWork): Promise<OperationalGauges> {
  const [webhookQueueDepth, statusLists, trustSources] = await Promise.all([
    eventsRepository.countPending(db),
    statusListFillRepository.fill(db),
    trustSourceRepository.health(db, new Date()),
  ]);
  return { webhookQueueDepth, statusLists, trustSources };
}
