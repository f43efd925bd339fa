import type { UnitOfWork } from "@cred/db";
import { newId } from "../shared/ids";

export async function createTenant(db: UnitOfWork, name: string) {
  return db.prisma.tenant.create({ data: { id: newId("ten"), name } });
}
