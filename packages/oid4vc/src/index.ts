export * from "./jose/index";
export * from "./sd-jwt-vc/index";
export * from "./status-list/index";
export * from "./vci/index";
export * from "./vp/index";
export * from "./x509/index";
