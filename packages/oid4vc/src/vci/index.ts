export * from "./authorization-server-metadata";
export * from "./credential-offer";
export * from "./credential-request";
export * from "./errors";
export * from "./issuer-metadata";
export * from "./proof-jwt";
export * from "./token-request";
export * from "./well-known";
