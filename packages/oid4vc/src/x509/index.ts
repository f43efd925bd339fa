export * from "./validate-certificate-path";
