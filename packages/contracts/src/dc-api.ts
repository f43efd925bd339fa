import { z } from "zod";
import { registerRequestExample } from "./request-example";

/** OpenID4VP 1.0 Appendix A protocol identifiers (the `protocol` of a Digital Credentials API request). */
export const DC_API_PROTOCOLS = [
  "openid4vp-v1-unsigned",
  "openid4vp-v1-signed",
  "openid4vp-v1-multisigned",
] as const;

/** The client identifier prefixes a multi-signed request can sign under (one signature each). */
export const DC_API_SIGNING_PREFIXES = ["x509_hash", "x509_san_dns", "decentralized_identifier"] as const;

/** What a verification policy allows over the Digital Credentials API. */
export const zPolicyDcApi = z
  .enum(["off", "signed", "signed_or_unsigned"])
  .default("signed_or_unsigned")
  .meta({
    description:
      "Verifications over the browser's Digital Credentials API (OpenID4VP Appendix A; response mode `dc_api.jwt` when `responseMode` is `direct_post.jwt`, else `dc_api`): `off`, `signed` only (`openid4vp-v1-signed` with `expected_origins`, as HAIP requires, or `openid4vp-v1-multisigned`), or `signed_or_unsigned` (also `openid4vp-v1-unsigned`, where the page's origin identifies the verifier).",
    example: "signed",
  });

const zOrigin = z
  .string()
  .max(300)
  .regex(/^https?:\/\/[^/?#@\s]+$/, "must be an origin: scheme, host and optional port, no path")
  .meta({ description: "A web origin.", example: "https://shop.example.com" });

/** Verifications_Create `dcApi`: start the verification for the Digital Credentials API. */
export const zCreateDcApiOptions = z
  .strictObject({
    origins: z
      .array(zOrigin)
      .min(1)
      .max(10)
      .meta({
        description:
          "The origins of the pages that call `navigator.credentials.get` with this request: `expected_origins` of a signed request; for an unsigned one, the origins whose `origin:<origin>` client identifier the presentation's audience may name.",
        example: ["https://shop.example.com"],
      }),
    signed: z.boolean().default(true).meta({
      description:
        "Sign the request (`openid4vp-v1-signed`, with the verifier certificate, as for request_uri); false sends `openid4vp-v1-unsigned` (the policy must allow it).",
      example: true,
    }),
    clientIdPrefixes: z
      .array(z.enum(DC_API_SIGNING_PREFIXES))
      .min(2)
      .max(DC_API_SIGNING_PREFIXES.length)
      .refine((prefixes) => new Set(prefixes).size === prefixes.length, "each prefix at most once")
      .optional()
      .meta({
        description:
          "Sign the request once per client identifier (`openid4vp-v1-multisigned`, OpenID4VP 1.0 Appendix A.3.2, JWS JSON Serialization), so that wallets of different trust frameworks each find a client identifier they accept: `x509_hash` and `x509_san_dns` (the verifier certificate, `x5c`; `x509_san_dns` needs the certificate to name the public host, else 409 VerifierCertificateMismatch) and `decentralized_identifier` (the policy's DID, `did:jwk` or `did:web` by its `didMethod`, of the same key; `kid`). All signatures are made with the verifier certificate's key. `client_id` and `verifier_info` travel in each signature's protected header; the registration certificate goes only with the X.509 signatures. The presentations' audience is `origin:<origin>` (Appendix A.4). Needs `signed: true`; without it the request has one signature under the policy's `clientIdPrefix`.",
        example: ["x509_hash", "decentralized_identifier"],
      }),
  })
  .meta({
    id: "CreateVerificationDcApiOptions",
    description:
      "Start the verification for the browser's Digital Credentials API (OpenID4VP 1.0 Appendix A) instead of a wallet link: the response carries `dcApiRequest`, and the page's result is handed back with VerificationSessions_SubmitDcApiResponse.",
  });

/** Verification session `dcApiRequest`: what the page passes to navigator.credentials.get. */
export const zDcApiRequest = z
  .object({
    protocol: z.enum(DC_API_PROTOCOLS).meta({ example: "openid4vp-v1-signed" }),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        "The request: `{ request: <signed request object> }` for `openid4vp-v1-signed`, `{ request: { payload, signatures } }` (a JWS in the General JSON Serialization, one signature per client identifier) for `openid4vp-v1-multisigned`, the request parameters themselves for `openid4vp-v1-unsigned`.",
    }),
  })
  .meta({
    id: "DcApiRequest",
    description:
      "For a Digital Credentials API session: pass it as is, `navigator.credentials.get({ digital: { requests: [dcApiRequest] } })`.",
  });

// VerificationSessions_SubmitDcApiResponse
export const ZSubmitDcApiResponseRequest = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .meta({ description: "The verification session's id.", example: "vs_01jd5x6c3v8w9y0z1a2b3c4d5e" }),
    protocol: z.string().min(1).max(100).meta({
      description: "The `protocol` of the DigitalCredential the page received; must be the request's.",
      example: "openid4vp-v1-signed",
    }),
    data: z
      .record(z.string(), z.unknown())
      .refine((data) => JSON.stringify(data).length <= 4 * 1024 * 1024, "at most 4 MiB")
      .meta({
        description:
          "The `data` of the DigitalCredential: `{ response: <JWE> }` for `dc_api.jwt`, `{ vp_token: {…} }` for `dc_api`, or a wallet error `{ error, error_description }`.",
      }),
  })
  .meta({ id: "SubmitDcApiResponseRequest" });
registerRequestExample(ZSubmitDcApiResponseRequest, ["id"], {
  protocol: "openid4vp-v1-signed",
  data: { response: "eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTEyOEdDTSJ9..iv.ciphertext.tag" },
});
export type TSubmitDcApiResponseRequest = z.infer<typeof ZSubmitDcApiResponseRequest>;
