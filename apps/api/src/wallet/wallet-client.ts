import type { AppDeps } from "@cred/core";
import type { WalletIssuer } from "@cred/core/wallet";
import {
  attestationChallengesOf,
  dpopNoncesOf,
  dpopProofForTokenRequest,
  type WalletClientCredentials,
} from "@cred/core/wallet";
import type { FastifyRequest } from "fastify";
import { headerValues } from "./presented-credentials";
import { attestationChallengeHeader, dpopNonceHeader } from "./response-headers";

/**
 * What a wallet sent to authenticate itself at the PAR or token endpoint: its attestation headers and
 * the key of its DPoP proof for `url`, checked (400 `invalid_dpop_proof`, required where `requireDpop`;
 * 400 `use_dpop_nonce` without a current nonce where the issuer requires DPoP nonces), and the issuer's
 * attestation challenges where it requires them; with the `DPoP-Nonce` and attestation challenge
 * headers the endpoint's answer carries.
 */
export async function walletClient(
  deps: AppDeps,
  request: FastifyRequest,
  issuer: WalletIssuer,
  target: { url: string; requireDpop: boolean },
): Promise<{ client: WalletClientCredentials; replyHeaders: Record<string, string> }> {
  const nonces = dpopNoncesOf(deps.secretBox, issuer);
  const challenges = attestationChallengesOf(deps.secretBox, issuer);
  const proofs = headerValues(request, "dpop");
  const checked = await dpopProofForTokenRequest(
    deps.database.root,
    proofs,
    target.url,
    target.requireDpop,
    nonces,
  );
  return {
    client: {
      attestations: headerValues(request, "oauth-client-attestation"),
      attestationPops: headerValues(request, "oauth-client-attestation-pop"),
      dpopJkt: checked?.jkt ?? null,
      dpopNonce: checked?.nonce,
      challenges,
    },
    replyHeaders: { ...dpopNonceHeader(nonces), ...attestationChallengeHeader(challenges) },
  };
}
