import { ENVIRONMENTS, type Environment } from "@cred/contracts/scopes";
import { didWebDocument, VpError } from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { assertVerifierTenantActive } from "./suspended-verifier";
import { verificationRepository } from "./verification-repository";
import { getVerifierIdentity } from "./verifier-identity";

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The DID document of a verifier's `did:web` (policy `didMethod: web`), read by wallets at
 * `GET /verifier/{tenantId}/{environment}/did.json` (did:web §3.2): the tenant + environment's current
 * verifier key as its one `JsonWebKey2020` verification method (`<did>#<JWK thumbprint>`). Only read:
 * a tenant + environment without a verifier certificate yet (or an unknown one) → 404, never a new
 * certificate; a suspended tenant → 403 `access_denied`, as its other verifier endpoints.
 */
export async function serveVerifierDidDocument(deps: AppDeps, tenantId: string, environment: string) {
  const notFound = () => new VpError("invalid_request", "no such verifier DID", { status: 404 });
  if (!TENANT_ID.test(tenantId) || !(ENVIRONMENTS as readonly string[]).includes(environment))
    throw notFound();
  const scope = { tenantId, environment: environment as Environment };
  const row = await verificationRepository.findVerifierCertificate(deps.database.root, scope);
  if (!row) throw notFound();
  await assertVerifierTenantActive(deps, tenantId);
  const identity = await getVerifierIdentity(deps, scope);
  return didWebDocument(identity.didWeb, identity.publicJwk);
}
