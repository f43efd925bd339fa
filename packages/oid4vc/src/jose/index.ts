export * from "./base64url";
export * from "./jwk";
export * from "./jws";
export * from "./keys";
export * from "./oauth-error";
export * from "./random";
export * from "./time";
