export type { Jwk, KeyInput } from "../jose/key-input";
export { publicJwk } from "../jose/key-input";
export * from "./access-certificate";
export * from "./authorization-response";
export * from "./claims-path";
export * from "./client-id";
export * from "./dc-api";
export * from "./dc-api-test-wallet";
export * from "./dcql";
export * from "./did-jwk";
export * from "./did-web";
export * from "./errors";
export * from "./match-presentations";
export * from "./random";
export * from "./reasons";
export * from "./registration-certificate";
export * from "./relying-party-test-authorities";
export * from "./request-by-value";
export {
  type AuthorizationRequestPayload,
  authorizationRequestLink,
  type BuildAuthorizationRequestInput,
  buildAuthorizationRequest,
  encryptionJwks,
  InvalidAuthorizationRequestError,
  parseRequestUriPostBody,
  REQUEST_OBJECT_CONTENT_TYPE,
  REQUEST_OBJECT_TYP,
  type RequestObjectSigner,
  type ResponseEncValue,
  type ResponseMode,
  SD_JWT_VC_VP_FORMATS,
  SELF_ISSUED_AUDIENCE,
  SUPPORTED_RESPONSE_ENC_VALUES,
  signRequestObject,
  type VerifierClientMetadata,
  type VerifierInfo,
  verifierCapabilities,
} from "./request-object";
export * from "./response-encryption";
export * from "./sd-jwt-vc-credential-verifier";
// Test helpers (clearly labelled in their files): the test wallet and a minimal SD-JWT VC issuer/verifier.
export * from "./test-sd-jwt";
export * from "./test-wallet";
export * from "./trusted-authorities";
export * from "./verifier-certificate";
export * from "./verify-presentation";
export * from "./verify-request-object";
export * from "./z-authorization-response";
export * from "./z-dcql";
