import type { UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import { issuerRepository } from "./issuer-repository";

/** Bits per entry: IETF Token Status List with 2 bits (0 valid, 1 invalid, 2 suspended). */
export const STATUS_LIST_BITS = 2;

/**
 * Creates an empty status list for an issuer (every entry 0 = valid: its bits have no chunk rows until a
 * revocation). Issuance allocates indices from it; call it in the transaction that needs the list.
 */
export async function provisionStatusList(
  db: UnitOfWork,
  scope: TenantScope,
  issuerId: string,
  config: Pick<CoreConfig, "issuance">,
): Promise<string> {
  const size = config.issuance.statusListSize;
  const row = await issuerRepository.createStatusList(db, {
    id: newId("sl"),
    ...scope,
    issuerId,
    bits: STATUS_LIST_BITS,
    size,
  });
  return row.id;
}
