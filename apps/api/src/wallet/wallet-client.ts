import type { AppDeps } from "@cred/core";
import {
  dpopProofForTokenRequest,
  type IssuerNonces,
  type WalletClientCredentials,
} from "@cred/core/authorization-server/index";
import type { FastifyRequest } from "fastify";
import { headerValues } from "./presented-credentials";

/**
 * What a wallet sent to authenticate itself at the PAR or token endpoint: its attestation headers and
 * the key of its DPoP proof for `url`, checked (400 `invalid_dpop_proof`, required where `requireDpop`;
 * 400 `use_dpop_nonce` without a current nonce where `nonces` are required), and the issuer's
 * attestation `challenges` where it requires them.
 */
export async function walletClient(
  deps: AppDeps,
  request: FastifyRequest,
  target: { url: string; requireDpop: boolean },
  nonces: IssuerNonces | undefined,
  challenges: IssuerNonces | undefined,
): Promise<WalletClientCredentials> {
  const proofs = headerValues(request, "dpop");
  const checked = await dpopProofForTokenRequest(
    deps.database.fast,
    proofs,
    target.url,
    target.requireDpop,
    nonces,
  );
  return {
    attestations: headerValues(request, "oauth-client-attestation"),
    attestationPops: headerValues(request, "oauth-client-attestation-pop"),
    dpopJkt: checked?.jkt ?? null,
    dpopNonce: checked?.nonce,
    challenges,
  };
}
