export * from "./status-list-bytes";
export * from "./status-list-encoding";
export * from "./status-list-token";
export * from "./status-reference";
