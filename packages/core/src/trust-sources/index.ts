export { refreshDueTrustSources } from "./refresh-trust-source";
export { trustSourceAnchors } from "./trust-source-anchors";
