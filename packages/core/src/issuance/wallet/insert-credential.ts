import type { Prisma } from "@cred/db";
import type { CoreConfig } from "../../context";
import type { TenantScope } from "../../shared/principal";
import { type StatusSlot, withStatusSlot } from "./allocate-status-index";

interface CredentialRow {
  id: string;
  tenantId: string;
  environment: string;
  issuerId: string;
  configurationId: string;
  transactionId: string;
  status: string;
  holderKeyThumb: string | null;
  notificationId: string | null;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * Signs the credential for a status slot and records its metadata (never its claims). With status
 * disabled there is no slot; otherwise a taken index means signing again for a fresh one.
 */
export async function allocateAndInsert(
  tx: Prisma.TransactionClient,
  config: Pick<CoreConfig, "issuance">,
  scope: TenantScope,
  issuerId: string,
  statusEnabled: boolean,
  work: {
    sign: (slot: StatusSlot | null) => Promise<string>;
    row: CredentialRow;
    digestOf: (credential: string) => string;
  },
): Promise<string> {
  if (!statusEnabled) {
    const credential = await work.sign(null);
    await tx.credential.create({ data: { ...work.row, digest: work.digestOf(credential) } });
    return credential;
  }
  let credential = "";
  await withStatusSlot(tx, config, scope, issuerId, async (slot) => {
    credential = await work.sign(slot);
    const { count } = await tx.credential.createMany({
      data: [
        { ...work.row, digest: work.digestOf(credential), statusListId: slot.listId, statusIndex: slot.idx },
      ],
      skipDuplicates: true,
    });
    return count === 1;
  });
  return credential;
}
