export * from "./anchors";
export * from "./errors";
export * from "./lote-jws";
export * from "./model";
export * from "./resolve";
export * from "./trusted-list-xml";
export * from "./xml-signature";
