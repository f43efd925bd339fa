import type { Db } from "@cred/db";
import { newId } from "../shared/ids";

export async function createTenant(db: Db, name: string) {
  return db.tenant.create({ data: { id: newId("ten"), name } });
}
