import type { UnitOfWork } from "@cred/db";
import { notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { loadVerificationPolicyDto } from "./verification-policy-dto";
import { verificationPolicyRepository } from "./verification-policy-repository";

export async function getVerificationPolicy(db: UnitOfWork, scope: TenantScope, identifier: string) {
  const row = await verificationPolicyRepository.findByIdentifier(db, scope, identifier);
  if (!row) throw notFound("The verification policy");
  return loadVerificationPolicyDto(db, row);
}
