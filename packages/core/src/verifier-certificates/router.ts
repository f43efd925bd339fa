import {
  ZGetVerifierCertificateRequest,
  ZUploadVerifierCertificateRequest,
  ZVerifierCertificateResponse,
} from "@cred/contracts/verifier-certificates";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { getVerifierCertificate, uploadVerifierCertificate } from "./verifier-certificates";

const TAGS = ["Verifier certificate"];
const PATH = "/management/verifier-certificate";

/** Platform extensions (not among the specification's operations): the verifier's X.509 identity. */
export const verifierCertificatesRouter = router({
  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: PATH,
        operationId: "VerifierCertificates_Get",
        summary: "Get the verifier certificate",
        description:
          "Extension. The certificate that signs this environment's OpenID4VP request objects (x5c), with the client identifiers wallets see. Generated on first use when none exists.",
        tags: TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [401, 403, 429],
    })
    .input(ZGetVerifierCertificateRequest)
    .output(ZVerifierCertificateResponse)
    .query(async ({ ctx }) => ({ data: await getVerifierCertificate(ctx.deps, scopeOf(ctx)) })),

  upload: protectedProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: PATH,
        operationId: "VerifierCertificates_Upload",
        summary: "Replace the verifier certificate by an uploaded chain",
        description:
          "Extension. Installs a certificate chain (PEM, leaf first) and its private key for this environment, replacing the current certificate. Invalid input → 400 InvalidCertificate with details. Pending sessions whose client_id the new certificate does not carry (every x509_hash session) can no longer be fetched by wallets.",
        tags: TAGS,
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZUploadVerifierCertificateRequest)
    .output(ZVerifierCertificateResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await uploadVerifierCertificate(ctx.deps, scopeOf(ctx), input),
    })),
});
