import {
  ZActivateIssuerRequest,
  ZActivateIssuerResponse,
  ZCreateIssuerRequest,
  ZCreateIssuerResponse,
  ZDeleteIssuerSigningCertificateRequest,
  ZDeleteIssuerSigningCertificateResponse,
  ZDiscardNextIssuerSigningKeyRequest,
  ZDiscardNextIssuerSigningKeyResponse,
  ZGetIssuerCertificateSigningRequestRequest,
  ZGetIssuerCertificateSigningRequestResponse,
  ZGetIssuerReadinessRequest,
  ZGetIssuerReadinessResponse,
  ZGetIssuerRequest,
  ZGetIssuerResponse,
  ZListIssuersRequest,
  ZListIssuersResponse,
  ZPrepareIssuerSigningKeyRequest,
  ZPrepareIssuerSigningKeyResponse,
  ZRotateCredentialEncryptionKeyRequest,
  ZRotateIssuerSigningKeyRequest,
  ZRotateIssuerSigningKeyResponse,
  ZSetIssuerSigningCertificateRequest,
  ZSetIssuerSigningCertificateResponse,
  ZUpdateIssuerRequest,
  ZUpdateIssuerResponse,
} from "@cred/contracts/issuers";
import { protectedProcedure, router } from "../rpc/trpc";
import { activateIssuer } from "./activate-issuer";
import { createIssuer } from "./create-issuer";
import { getIssuer } from "./get-issuer";
import { getIssuerReadiness } from "./get-issuer-readiness";
import { issuerCallerOf } from "./issuer-caller";
import {
  getIssuerCertificateSigningRequest,
  setIssuerSigningCertificate,
} from "./issuer-signing-certificate";
import { listIssuers } from "./list-issuers";
import { discardNextSigningKey, prepareNextSigningKey } from "./next-signing-key";
import { rotateCredentialEncryptionKey } from "./rotate-credential-encryption-key";
import { rotateIssuerSigningKey } from "./rotate-issuer-signing-key";
import { assertNoReadOnlyIssuerFields, updateIssuer } from "./update-issuer";

const TAGS = ["Issuers"];

export const issuersRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/issuers",
        operationId: "Issuers_Create",
        summary: "Create an issuer",
        description:
          "Creates a draft issuer for an organisation, generates its ES256 signing key (the private key is encrypted at rest and never returned) and provisions its first status list.",
        tags: TAGS,
        successDescription: "The issuer was created (status draft).",
      },
      scopes: ["issuers.manage"],
      successStatus: 201,
      errorStatuses: [400, 401, 403, 404, 409, 429, 503],
      idempotent: true,
    })
    .input(ZCreateIssuerRequest)
    .output(ZCreateIssuerResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createIssuer({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input),
    })),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/issuers/{issuerId}",
        operationId: "Issuers_Get",
        summary: "Get an issuer",
        tags: TAGS,
      },
      scopes: ["issuers.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetIssuerRequest)
    .output(ZGetIssuerResponse)
    .query(async ({ ctx, input }) => ({
      data: await getIssuer({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input.issuerId),
    })),

  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/issuers",
        operationId: "Issuers_List",
        summary: "List issuers",
        description: "Issuers in creation order, optionally filtered by organisation and status.",
        tags: TAGS,
      },
      scopes: ["issuers.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListIssuersRequest)
    .output(ZListIssuersResponse)
    .query(({ ctx, input }) => listIssuers({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input)),

  update: protectedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/management/issuers/{issuerId}",
        operationId: "Issuers_Update",
        summary: "Update an issuer (JSON merge patch)",
        description:
          "JSON merge patch (RFC 7396): members left out are unchanged, null clears an optional member, `display` is replaced as a whole. Read-only members (id, status, signingKey, credentialIssuer, timestamps) give 400 ReadOnlyField.",
        tags: TAGS,
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .use(async ({ getRawInput, next }) => {
      assertNoReadOnlyIssuerFields(await getRawInput());
      return next();
    })
    .input(ZUpdateIssuerRequest)
    .output(ZUpdateIssuerResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await updateIssuer({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input);
      return { data };
    }),

  activate: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/issuers/{issuerId}/activate",
        operationId: "Issuers_Activate",
        summary: "Activate an issuer",
        description:
          "Moves a draft issuer to active once every readiness item is satisfied; otherwise 409 IssuerNotReady lists the outstanding items in `details`. Activating an active issuer returns it unchanged.",
        tags: TAGS,
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZActivateIssuerRequest)
    .output(ZActivateIssuerResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await activateIssuer({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input.issuerId),
    })),

  rotateSigningKey: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/issuers/{issuerId}/rotate-signing-key",
        operationId: "Issuers_RotateSigningKey",
        summary: "Rotate an issuer's signing key",
        description:
          "Generates a new ES256 signing key for the issuer; credentials and status list tokens are signed with it from now on. The replaced key's private part is discarded; its public part stays in the issuer's JWKS (`replacedKey: keep`, the default, listed in `previousSigningKeys`) or is withdrawn at once (`withdraw`, for a compromised key: credentials it signed stop verifying). Not part of the interface specification; see docs/api/issuers-and-credential-configurations.md.",
        tags: TAGS,
        successDescription: "The issuer with its new signing key.",
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429, 503],
      idempotent: true,
    })
    .input(ZRotateIssuerSigningKeyRequest)
    .output(ZRotateIssuerSigningKeyResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await rotateIssuerSigningKey({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input);
      return { data };
    }),

  rotateCredentialEncryptionKey: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/issuers/{issuerId}/rotate-credential-encryption-key",
        operationId: "Issuers_RotateCredentialEncryptionKey",
        summary: "Rotate the key wallets encrypt credential requests to",
        description:
          "Publishes a fresh ECDH-ES key in `credential_request_encryption`; requests encrypted to the replaced key are still decrypted for `overlapSeconds` (default one day). 409 when the issuer offers no credential encryption. Not part of the interface specification; see docs/api/issuance.md.",
        tags: TAGS,
        successDescription: "The issuer with its new credential encryption key.",
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
      idempotent: true,
    })
    .input(ZRotateCredentialEncryptionKeyRequest)
    .output(ZUpdateIssuerResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await rotateCredentialEncryptionKey(
        { ...ctx.deps, db: ctx.db },
        issuerCallerOf(ctx),
        input,
      );
      return { data };
    }),

  prepareSigningKey: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/management/issuers/{issuerId}/next-signing-key",
        operationId: "Issuers_PrepareSigningKey",
        summary: "Prepare the key the next rotation switches to",
        description:
          "Generates the issuer's next ES256 key ahead of its rotation: it is published in the JWKS at once, its certificate can be requested and set (`key: next`), and Issuers_RotateSigningKey then switches to it with its chain, so credentials and status list tokens carry `x5c` without a gap. A key prepared already is returned unchanged. Not part of the interface specification.",
        tags: TAGS,
        successDescription: "The issuer with its prepared next key.",
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 429, 503],
    })
    .input(ZPrepareIssuerSigningKeyRequest)
    .output(ZPrepareIssuerSigningKeyResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await prepareNextSigningKey(
        { ...ctx.deps, db: ctx.db },
        issuerCallerOf(ctx),
        input.issuerId,
      );
      return { data };
    }),

  discardNextSigningKey: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/management/issuers/{issuerId}/next-signing-key",
        operationId: "Issuers_DiscardNextSigningKey",
        summary: "Discard the prepared next key",
        description:
          "Discards the prepared next key and its certificate chain; it leaves the JWKS. Nothing prepared → the issuer unchanged. Not part of the interface specification.",
        tags: TAGS,
        successDescription: "The issuer without a prepared next key.",
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZDiscardNextIssuerSigningKeyRequest)
    .output(ZDiscardNextIssuerSigningKeyResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await discardNextSigningKey(
        { ...ctx.deps, db: ctx.db },
        issuerCallerOf(ctx),
        input.issuerId,
      );
      return { data };
    }),

  getCertificateSigningRequest: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/issuers/{issuerId}/certificate-signing-request",
        operationId: "Issuers_GetCertificateSigningRequest",
        summary: "Get a certificate signing request for an issuer's signing key",
        description:
          "A PKCS#10 request for the current signing key (or, with `key=next`, the prepared next key; 409 InvalidState when none is prepared), signed with it, for the operator's CA to certify; set the resulting chain with Issuers_SetSigningCertificate. Not part of the interface specification; see docs/api/issuers-and-credential-configurations.md.",
        tags: TAGS,
      },
      scopes: ["issuers.read"],
      errorStatuses: [400, 401, 403, 404, 409, 429, 503],
    })
    .input(ZGetIssuerCertificateSigningRequestRequest)
    .output(ZGetIssuerCertificateSigningRequestResponse)
    .query(async ({ ctx, input }) => ({
      data: await getIssuerCertificateSigningRequest(
        { ...ctx.deps, db: ctx.db },
        issuerCallerOf(ctx),
        input.issuerId,
        input.key,
      ),
    })),

  setSigningCertificate: protectedProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/management/issuers/{issuerId}/signing-certificate",
        operationId: "Issuers_SetSigningCertificate",
        summary: "Set the certificate chain of an issuer's signing key",
        description:
          "Credentials and status list tokens then carry the chain in their `x5c` header (HAIP), next to `kid`, while the chain is valid. With `key: next`, the chain is for the prepared next key and goes into use with it at the next rotation (409 InvalidState when none is prepared). The chain is checked against the chosen key and the credential issuer identifier → 400 InvalidCertificate with one detail per problem. Replaces any chain set before; a rotation switches to the prepared next key's chain, or removes it when no key was prepared. Not part of the interface specification; see docs/api/issuers-and-credential-configurations.md.",
        tags: TAGS,
        successDescription: "The issuer with its signing certificate.",
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZSetIssuerSigningCertificateRequest)
    .output(ZSetIssuerSigningCertificateResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await setIssuerSigningCertificate({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input);
      return { data };
    }),

  deleteSigningCertificate: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/management/issuers/{issuerId}/signing-certificate",
        operationId: "Issuers_DeleteSigningCertificate",
        summary: "Remove the certificate chain of an issuer's signing key",
        description:
          "Credentials and status list tokens go out without `x5c` (kid only) from now on. Removing when none is set answers the issuer unchanged. Not part of the interface specification.",
        tags: TAGS,
        successDescription: "The issuer without a signing certificate.",
      },
      scopes: ["issuers.manage"],
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZDeleteIssuerSigningCertificateRequest)
    .output(ZDeleteIssuerSigningCertificateResponse)
    .mutation(async ({ ctx, input }) => {
      const data = await setIssuerSigningCertificate({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), {
        issuerId: input.issuerId,
        certificateChainPem: null,
        key: input.key,
      });
      return { data };
    }),

  getReadiness: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/issuers/{issuerId}/readiness",
        operationId: "Issuers_GetReadiness",
        summary: "Get an issuer's readiness checklist",
        description:
          "A structured checklist with one item per requirement for activation, each satisfied or outstanding with what to do next.",
        tags: TAGS,
      },
      scopes: ["issuers.read"],
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZGetIssuerReadinessRequest)
    .output(ZGetIssuerReadinessResponse)
    .query(async ({ ctx, input }) => ({
      data: await getIssuerReadiness({ ...ctx.deps, db: ctx.db }, issuerCallerOf(ctx), input.issuerId),
    })),
});
