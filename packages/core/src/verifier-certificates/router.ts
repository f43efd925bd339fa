import {
  ZAddVerifierRegistrationCertificateRequest,
  ZCreateVerifierCertificateSigningRequestRequest,
  ZDeleteVerifierRegistrationCertificateRequest,
  ZGetVerifierCertificateRequest,
  ZGetVerifierRegistrationCertificateRequest,
  ZImportVerifierAccessCertificateRequest,
  ZListVerifierRegistrationCertificatesRequest,
  ZListVerifierRegistrationCertificatesResponse,
  ZUploadVerifierCertificateRequest,
  ZUploadVerifierRegistrationCertificateRequest,
  ZVerifierCertificateResponse,
  ZVerifierCertificateSigningRequestResponse,
  ZVerifierRegistrationCertificateIdParams,
  ZVerifierRegistrationCertificateResponse,
} from "@cred/contracts/verifier-certificates";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import {
  createVerifierCertificateSigningRequest,
  importVerifierAccessCertificate,
} from "./access-certificate";
import {
  addVerifierRegistrationCertificate,
  deleteVerifierRegistrationCertificate,
  getVerifierRegistrationCertificate,
  getVerifierRegistrationCertificateById,
  listVerifierRegistrationCertificates,
  removeVerifierRegistrationCertificate,
  uploadVerifierRegistrationCertificate,
} from "./registration-certificate";
import { getVerifierCertificate, uploadVerifierCertificate } from "./verifier-certificates";

const TAGS = ["Verifier certificate"];
const PATH = "/management/verifier-certificate";
const REGISTRATION_TAGS = ["Verifier registration certificate"];
const REGISTRATION_PATH = "/management/verifier-registration-certificate";
const REGISTRATIONS_PATH = "/management/verifier-registration-certificates";

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

  createSigningRequest: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PATH}/signing-request`,
        operationId: "VerifierCertificates_CreateSigningRequest",
        summary: "Start an access certificate (WRPAC): key and CSR",
        description:
          "Extension. Generates a P-256 key (kept sealed, never returned) and a PKCS#10 request whose subject carries C, O, organizationIdentifier and CN as ETSI TS 119 411-8 asks of a relying-party access certificate, with dNSName SANs (the public host by default) and the requested certificate policies. Send the CSR to the access CA, then import its certificate with VerifierCertificates_ImportAccessCertificate. The certificate in use keeps signing until then; a new request replaces a pending one. A retry with the same Idempotency-Key is answered the first request's CSR and makes no second key. Accepts Idempotency-Key.",
        tags: TAGS,
        successDescription: "The request was made; its key waits for the certificate.",
      },
      scopes: ["verification-policies.manage"],
      successStatus: 201,
      // 409: IdempotencyKeyReused / IdempotencyKeyInUse. 503: keyCustody pkcs11 with the token unreachable.
      errorStatuses: [400, 401, 403, 409, 429, 503],
      idempotent: true,
    })
    .input(ZCreateVerifierCertificateSigningRequestRequest)
    .output(ZVerifierCertificateSigningRequestResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createVerifierCertificateSigningRequest(ctx.deps, ctx.db, scopeOf(ctx), input),
    })),

  importAccessCertificate: protectedProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${PATH}/access-certificate`,
        operationId: "VerifierCertificates_ImportAccessCertificate",
        summary: "Install the access certificate the CA issued",
        description:
          "Extension. Installs the chain the access CA issued for the pending signing request: validated to `trustAnchorPem` (RFC 5280), leaf with the pending key and an organizationIdentifier. Request objects are then signed with it (x5c). No pending request → 409 InvalidState; a chain that does not validate or fit → 400 InvalidCertificate. Pending sessions whose client_id the new certificate does not carry (every x509_hash session) can no longer be fetched by wallets.",
        tags: TAGS,
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 409, 429],
    })
    .input(ZImportVerifierAccessCertificateRequest)
    .output(ZVerifierCertificateResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await importVerifierAccessCertificate(ctx.deps, scopeOf(ctx), input),
    })),

  getRegistration: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: REGISTRATION_PATH,
        operationId: "VerifierRegistrationCertificates_Get",
        summary: "Get the registration certificate",
        description:
          "Extension. The relying party's registration certificate (WRPRC, ETSI TS 119 475) of this environment, with what it registers; 404 when none was uploaded.",
        tags: REGISTRATION_TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [401, 403, 404, 429],
    })
    .input(ZGetVerifierRegistrationCertificateRequest)
    .output(ZVerifierRegistrationCertificateResponse)
    .query(async ({ ctx }) => ({ data: await getVerifierRegistrationCertificate(ctx.deps, scopeOf(ctx)) })),

  uploadRegistration: protectedProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: REGISTRATION_PATH,
        operationId: "VerifierRegistrationCertificates_Upload",
        summary: "Install the registration certificate",
        description:
          "Extension. Installs a registration certificate (JWT, `typ: rc-wrp+jwt`): signature by its x5c, chain validated to `trustAnchorPem`, validity, and `sub` (or, for an intermediary, `act.sub`) equal to the access certificate's organizationIdentifier; otherwise 400 InvalidCertificate. 409 InvalidState while the verifier certificate has no organizationIdentifier. Every new verification then carries it in verifier_info and may ask only for what it registers (409 NotRegistered).",
        tags: REGISTRATION_TAGS,
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 409, 429],
    })
    .input(ZUploadVerifierRegistrationCertificateRequest)
    .output(ZVerifierRegistrationCertificateResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await uploadVerifierRegistrationCertificate(ctx.deps, scopeOf(ctx), input),
    })),

  deleteRegistration: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: REGISTRATION_PATH,
        operationId: "VerifierRegistrationCertificates_Delete",
        summary: "Remove the registration certificate",
        description:
          "Extension. Answers 200 with the certificate as it was. New verifications are no longer limited by it nor carry it; 404 when none was uploaded.",
        tags: REGISTRATION_TAGS,
        successDescription: "The registration certificate was removed; the body shows it as it was.",
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [401, 403, 404, 429],
    })
    .input(ZDeleteVerifierRegistrationCertificateRequest)
    .output(ZVerifierRegistrationCertificateResponse)
    .mutation(async ({ ctx }) => ({
      data: await deleteVerifierRegistrationCertificate(ctx.deps, scopeOf(ctx)),
    })),

  addRegistration: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: REGISTRATIONS_PATH,
        operationId: "VerifierRegistrationCertificates_Add",
        summary: "Add a registration certificate by id",
        description:
          "Extension. Checks a registration certificate as VerifierRegistrationCertificates_Upload does (400 InvalidCertificate, 409 InvalidState) and keeps it beside the environment's default one under an id of its own: verification policies name it in `registrationCertificateIds` (one or more per policy; one per relying party an intermediary acts for). Verifications under such a policy carry those certificates in verifier_info and may ask only for what one of them registers (409 NotRegistered). Accepts Idempotency-Key.",
        tags: REGISTRATION_TAGS,
        successDescription: "The registration certificate was added.",
      },
      scopes: ["verification-policies.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 429],
      idempotent: true,
    })
    .input(ZAddVerifierRegistrationCertificateRequest)
    .output(ZVerifierRegistrationCertificateResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await addVerifierRegistrationCertificate(ctx.deps, ctx.db, scopeOf(ctx), input),
    })),

  listRegistrations: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: REGISTRATIONS_PATH,
        operationId: "VerifierRegistrationCertificates_List",
        summary: "List the registration certificates",
        description:
          "Extension. The environment's registration certificates by id, the default one (`default: true`) among them.",
        tags: REGISTRATION_TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListVerifierRegistrationCertificatesRequest)
    .output(ZListVerifierRegistrationCertificatesResponse)
    .query(({ ctx, input }) => listVerifierRegistrationCertificates(ctx.deps, scopeOf(ctx), input)),

  getRegistrationById: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${REGISTRATIONS_PATH}/{registrationCertificateId}`,
        operationId: "VerifierRegistrationCertificates_GetById",
        summary: "Get a registration certificate by id",
        tags: REGISTRATION_TAGS,
      },
      scopes: ["verification-policies.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZVerifierRegistrationCertificateIdParams)
    .output(ZVerifierRegistrationCertificateResponse)
    .query(async ({ ctx, input }) => ({
      data: await getVerifierRegistrationCertificateById(
        ctx.deps,
        scopeOf(ctx),
        input.registrationCertificateId,
      ),
    })),

  removeRegistration: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${REGISTRATIONS_PATH}/{registrationCertificateId}`,
        operationId: "VerifierRegistrationCertificates_Remove",
        summary: "Remove a registration certificate by id",
        description:
          "Extension. Answers 200 with the certificate as it was (the default one may be removed this way too). Verifications under a policy naming it are refused from then on (409 NotRegistered) until the policy names another.",
        tags: REGISTRATION_TAGS,
        successDescription: "The registration certificate was removed; the body shows it as it was.",
      },
      scopes: ["verification-policies.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZVerifierRegistrationCertificateIdParams)
    .output(ZVerifierRegistrationCertificateResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await removeVerifierRegistrationCertificate(
        ctx.deps,
        scopeOf(ctx),
        input.registrationCertificateId,
      ),
    })),
});
